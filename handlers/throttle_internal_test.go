package handlers

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"
)

func newTestThrottle(now *time.Time) *loginThrottle {
	th := newLoginThrottle(5, 20, 15*time.Minute, 2)
	th.now = func() time.Time { return *now }
	return th
}

func TestLoginThrottlePerClient(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	th := newTestThrottle(&now)
	var last loginAttempt
	for i := range 5 {
		a, w := th.begin("ip", "admin")
		if w != 0 {
			t.Fatalf("attempt %d: wait %v, want 0", i+1, w)
		}
		last = a
		now = now.Add(time.Minute)
	}
	// Attempts at 12:00..12:04; now 12:05: blocked until 12:15.
	if _, got := th.begin("ip", "admin"); got != 10*time.Minute {
		t.Fatalf("after 5 attempts: wait %v, want 10m", got)
	}
	if _, w := th.begin("ip", "root"); w != 0 {
		t.Errorf("another username is blocked: %v", w)
	}
	if _, w := th.begin("other-ip", "admin"); w != 0 {
		t.Errorf("another IP is blocked: %v", w)
	}
	// An attempt that was never judged is forgotten: one more try.
	th.forget(last)
	a, w := th.begin("ip", "admin")
	if w != 0 {
		t.Fatalf("after forget: wait %v, want 0", w)
	}
	if _, w := th.begin("ip", "admin"); w == 0 {
		t.Fatal("6th counted attempt was not blocked")
	}
	// Success forgets the client's failures.
	th.succeeded(a)
	if _, w := th.begin("ip", "admin"); w != 0 {
		t.Errorf("after success: wait %v, want 0", w)
	}
	now = now.Add(15 * time.Minute)
	if _, w := th.begin("ip", "admin"); w != 0 {
		t.Errorf("after the window: wait %v, want 0", w)
	}
}

func TestLoginThrottlePerUsername(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	th := newTestThrottle(&now)
	var ok loginAttempt
	for i := range 20 {
		a, w := th.begin("ip-"+strconv.Itoa(i), "admin")
		if w != 0 {
			t.Fatalf("attempt %d from a new IP: wait %v, want 0", i+1, w)
		}
		if i == 0 {
			ok = a
		}
	}
	if _, w := th.begin("fresh-ip", "admin"); w != 15*time.Minute {
		t.Fatalf("21st attempt on the username: wait %v, want 15m", w)
	}
	if _, w := th.begin("fresh-ip", "root"); w != 0 {
		t.Errorf("another username is blocked: %v", w)
	}
	// A success uncounts itself, not the other clients' failures.
	th.succeeded(ok)
	if _, w := th.begin("fresh-ip", "admin"); w != 0 {
		t.Errorf("after one success: wait %v, want 0", w)
	}
	if _, w := th.begin("fresh-ip-2", "admin"); w == 0 {
		t.Error("one success cleared every client's failures on the username")
	}
}

func TestLoginThrottlePrunesExpiredKeys(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	th := newTestThrottle(&now)
	for i := range throttlePruneAbove + 1 {
		th.begin("ip", strconv.Itoa(i))
	}
	now = now.Add(16 * time.Minute)
	th.begin("ip", "last")
	if got := len(th.byClient.attempts) + len(th.byUser.attempts); got != 2 {
		t.Errorf("%d keys after pruning, want 2", got)
	}
}

func TestLoginThrottleCapsPasswordChecks(t *testing.T) {
	now := time.Now()
	th := newTestThrottle(&now)
	th.slotWait = 20 * time.Millisecond
	ctx := context.Background()
	r1, err1 := th.acquire(ctx)
	r2, err2 := th.acquire(ctx)
	if err1 != nil || err2 != nil {
		t.Fatalf("two slots: %v, %v", err1, err2)
	}
	if _, err := th.acquire(ctx); !errors.Is(err, errLoginBusy) {
		t.Fatalf("third check at once: err %v, want errLoginBusy", err)
	}
	r1()
	r3, err := th.acquire(ctx)
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	r2()
	r3()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	th.slots <- struct{}{}
	th.slots <- struct{}{}
	th.slotWait = time.Hour
	if _, err := th.acquire(cancelled); !errors.Is(err, errLoginBusy) {
		t.Fatalf("cancelled caller: err %v, want errLoginBusy", err)
	}
}
