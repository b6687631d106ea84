// The floors' WebGL: a canvas sized to its layout, drawing gl.POINTS of 4 px in one colour from
// attribute 0 (xyz), with a trivial shader; shared by floor.html and frames-floor.html.
window.pointsGl = (canvas) => {
  canvas.width = canvas.clientWidth; canvas.height = canvas.clientHeight;
  const gl = canvas.getContext('webgl');
  const shader = (type, src) => { const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s); return s; };
  const program = gl.createProgram();
  gl.attachShader(program, shader(gl.VERTEX_SHADER, 'attribute vec3 p; void main() { gl_Position = vec4(p * 0.5, 1.0); gl_PointSize = 4.0; }'));
  gl.attachShader(program, shader(gl.FRAGMENT_SHADER, 'precision mediump float; void main() { gl_FragColor = vec4(0.3, 0.7, 1.0, 1.0); }'));
  gl.linkProgram(program);
  gl.useProgram(program);
  return gl;
};
