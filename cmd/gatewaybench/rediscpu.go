package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisCPU returns what reads the CPU time the Redis at url has used so far
// (INFO cpu: its main process's user and system time), and what closes
// its connection. A failed read counts as no time.
func redisCPU(url string) (func(context.Context) time.Duration, func(), error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("redis url: %w", err)
	}
	rdb := redis.NewClient(opts)
	read := func(ctx context.Context) time.Duration {
		info, err := rdb.Info(ctx, "cpu").Result()
		if err != nil {
			return 0
		}
		return parseRedisCPU(info)
	}
	return read, func() { rdb.Close() }, nil
}

// parseRedisCPU adds up used_cpu_user and used_cpu_sys (seconds) of an
// INFO cpu answer.
func parseRedisCPU(info string) time.Duration {
	var seconds float64
	for line := range strings.Lines(info) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if k == "used_cpu_user" || k == "used_cpu_sys" {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				seconds += f
			}
		}
	}
	return time.Duration(seconds * float64(time.Second))
}
