// Eigenvalues and eigenvectors of a small dense symmetric matrix by cyclic
// Jacobi rotations: the Lanczos tridiagonal of the split test (tens of rows),
// and the tests' dense reference.
#pragma once

#include <vector>

namespace dapwc {

struct SymmetricEigen {
  std::vector<double> values;   // ascending
  std::vector<double> vectors;  // n × n, column i (entry r·n + i) the unit vector of values[i]
};

// `a` is n × n, row-major, symmetric.
SymmetricEigen symmetric_eigen(std::vector<double> a, int n);

}  // namespace dapwc
