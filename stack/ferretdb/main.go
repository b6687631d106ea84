// Command ferretdb-embedded runs FerretDB (MongoDB wire protocol over SQLite)
// as the platform's local document store when MONGODB_URI is not set.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on (empty: none)")
	// A socket in a directory only its owner can enter: FerretDB over SQLite has no authentication.
	listenUnix := flag.String("listen-unix", "", "Unix socket to listen on (empty: none)")
	dataDir := flag.String("data", "data/ferretdb", "directory for the SQLite files")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail("bad -log-level: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	abs, err := filepath.Abs(*dataDir)
	if err != nil {
		fail("bad -data: %v", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		fail("cannot create %s: %v", abs, err)
	}

	db, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen, Unix: *listenUnix},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/",
	})
	if err != nil {
		fail("%v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(os.Stderr, "ferretdb-embedded: listening on %s, data in %s\n", strings.Trim(*listen+" "+*listenUnix, " "), abs)
	go indexIDsEvery(ctx, abs, time.Second, logger)
	if err := db.Run(ctx); err != nil && ctx.Err() == nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "ferretdb-embedded: "+format+"\n", args...)
	os.Exit(1)
}
