// Command gateway is a self-hosted LLM gateway: one front door between AI
// client tools and many upstream model providers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"gateway/proxy/logbuf"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

// run is the whole program; tests call it. It returns when ctx is done and the
// gateway has shut down.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "gateway", version)
		return nil
	case "sticky":
		return stickyCommand(ctx, args, getenv, stdout, stderr)
	case "deployments":
		return deploymentsCommand(ctx, args, getenv, stdout, stderr)
	case "import":
		return importCommand(ctx, args, getenv, stdout, stderr)
	case "prices":
		return pricesCommand(ctx, args, getenv, stdout, stderr)
	default:
		return fmt.Errorf("unknown command %q (try --help)", cmd)
	}
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	// The log (an access line a request) is written a few times a second
	// rather than a line at a time: a write(2) per line cost as much CPU as
	// the line itself. Closed last, after the shutdown's own lines.
	logs := logbuf.New(stderr)
	defer logs.Close()
	g, err := Start(ctx, cfg, stdout, logs)
	if err != nil {
		return err
	}
	<-ctx.Done()
	// A fresh context: the signal's is already done, and shutdown gets its own bound.
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout+10*time.Second)
	defer cancel()
	return g.Shutdown(shutdownCtx)
}
