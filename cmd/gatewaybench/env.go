package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"gateway/proxy/logbuf"
)

// Target names, in the order every round runs them.
const (
	targetDirect  = "direct"
	targetProxy   = "proxy"
	targetGateway = "gateway"
)

// env is everything under test, in this process: the fake upstream, the
// plain reverse proxy and the gateway in front of it, and a client per target.
type env struct {
	upstream *server
	proxy    *server
	gateway  *gatewayUnderTest
	targets  []*target // direct, proxy, gateway
	dataDir  string
	closers  []func()
}

// startEnv starts the three servers. Warnings and errors of the gateway go to
// stderr; its info lines (one access line per request) to a file in the data
// directory, as a gateway in production writes each to its log: the write is
// part of what a request costs.
func startEnv(ctx context.Context, opts upstreamOptions, databaseURL, redisURL string, stderr io.Writer) (e *env, err error) {
	e = &env{}
	defer func() {
		if err != nil {
			err = errors.Join(err, e.close(context.WithoutCancel(ctx)))
		}
	}()
	if e.dataDir, err = os.MkdirTemp("", "gatewaybench-"); err != nil {
		return e, fmt.Errorf("data dir: %w", err)
	}
	accessLog, err := os.Create(filepath.Join(e.dataDir, "gateway.log"))
	if err != nil {
		return e, fmt.Errorf("access log: %w", err)
	}
	// Through the same buffer as the gateway's own log (cmd/gateway).
	accessBuf := logbuf.New(accessLog)
	e.closers = append(e.closers, func() { accessBuf.Close(); accessLog.Close() })
	logger := slog.New(slog.NewMultiHandler(
		slog.NewTextHandler(accessBuf, &slog.HandlerOptions{Level: slog.LevelInfo}),
		slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	errLog := slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	if e.upstream, err = serve(newFakeUpstream(opts), errLog); err != nil {
		return e, fmt.Errorf("fake upstream: %w", err)
	}
	upstreamURL := "http://" + e.upstream.addr()
	plain, plainTransport, err := newPlainProxy(upstreamURL)
	if err != nil {
		return e, err
	}
	e.closers = append(e.closers, plainTransport.CloseIdleConnections)
	if e.proxy, err = serve(plain, errLog); err != nil {
		return e, fmt.Errorf("plain proxy: %w", err)
	}
	if e.gateway, err = startGateway(ctx, e.dataDir, databaseURL, redisURL, upstreamURL, logger); err != nil {
		return e, fmt.Errorf("gateway: %w", err)
	}
	e.targets = []*target{newTarget(targetDirect, e.upstream.addr()), newTarget(targetProxy, e.proxy.addr()),
		newTarget(targetGateway, e.gateway.srv.addr())}
	gw := e.targets[2]
	gw.settle = func(ctx context.Context, sent int64) {
		if behind := e.gateway.waitLogged(ctx, sent, 3*time.Second); behind > 0 {
			fmt.Fprintf(stderr, "gatewaybench: the request-log writer is %d rows behind after 3 s\n", behind)
		}
	}
	if redisURL != "" {
		read, closeRedis, err := redisCPU(redisURL)
		if err != nil {
			return e, err
		}
		gw.sharedCPU = read
		e.closers = append(e.closers, closeRedis)
	}
	return e, nil
}

func (e *env) target(name string) *target {
	for _, t := range e.targets {
		if t.name == name {
			return t
		}
	}
	panic("gatewaybench: no target " + name)
}

// close stops the clients, the gateway, the proxy and the upstream, in that
// order, and removes the data dir.
func (e *env) close(ctx context.Context) error {
	for _, t := range e.targets {
		t.close()
	}
	var errs []error
	if e.gateway != nil {
		errs = append(errs, e.gateway.close(ctx))
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, s := range []*server{e.proxy, e.upstream} {
		if s != nil {
			errs = append(errs, s.shutdown(ctx))
		}
	}
	for _, c := range e.closers {
		c()
	}
	if e.dataDir != "" {
		errs = append(errs, os.RemoveAll(e.dataDir))
	}
	return errors.Join(errs...)
}
