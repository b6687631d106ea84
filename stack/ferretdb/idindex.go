package main

// FerretDB 1.24's SQLite backend answers {_id: x} with
//   WHERE _ferretdb_sjson->'$._id' = ?
// but indexes _id as (_ferretdb_sjson->"_id"). SQLite uses an expression index
// only for the identical expression, so every _id lookup scans the whole table
// (reads of 4 MB blob chunks slowed with everything stored). This adds, to every
// collection table, an index on the expression the queries use. FerretDB never
// sees it in its metadata; dropping the collection drops the table and the index.

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite"
)

const idIndexSuffix = "_wpv_id"

// indexIDsEvery indexes the tables of every database in dataDir now and then
// every period, so collections created later are covered within a period.
func indexIDsEvery(ctx context.Context, dataDir string, period time.Duration, logger *slog.Logger) {
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	open := map[string]*sql.DB{}
	defer func() {
		for _, db := range open {
			db.Close()
		}
	}()
	for {
		files, _ := filepath.Glob(filepath.Join(dataDir, "*.sqlite"))
		for _, file := range files {
			db, ok := open[file]
			if !ok {
				var err error
				db, err = sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
				if err != nil {
					logger.Warn("cannot open for _id indexes", "file", file, "error", err)
					continue
				}
				db.SetMaxOpenConns(1)
				open[file] = db
			}
			if err := indexIDs(ctx, db); err != nil && ctx.Err() == nil {
				logger.Warn("cannot add _id indexes", "file", file, "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// indexIDs creates the missing _id expression indexes of one database file.
func indexIDs(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `
		SELECT t.name FROM sqlite_master t
		WHERE t.type = 'table' AND t.name NOT LIKE '\_ferretdb\_%' ESCAPE '\' AND t.name NOT LIKE 'sqlite\_%' ESCAPE '\'
		  AND NOT EXISTS (SELECT 1 FROM sqlite_master i WHERE i.type = 'index' AND i.name = t.name || ?)`,
		idIndexSuffix)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, table := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (_ferretdb_sjson->'$._id')`, table+idIndexSuffix, table)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return nil
}
