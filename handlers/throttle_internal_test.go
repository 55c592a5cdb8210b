package handlers

import (
	"testing"
	"time"
)

func TestLoginThrottle(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	th := newLoginThrottle(5, 15*time.Minute)
	th.now = func() time.Time { return now }
	for i := range 5 {
		if w := th.wait("ip\x00admin"); w != 0 {
			t.Fatalf("before failure %d: wait %v, want 0", i+1, w)
		}
		th.fail("ip\x00admin")
		now = now.Add(time.Minute)
	}
	// Failures at 12:00..12:04; now 12:05: blocked until 12:15.
	if got, want := th.wait("ip\x00admin"), 10*time.Minute; got != want {
		t.Fatalf("after 5 failures: wait %v, want %v", got, want)
	}
	if w := th.wait("ip\x00root"); w != 0 {
		t.Errorf("another username is blocked: %v", w)
	}
	now = now.Add(10 * time.Minute) // 12:15: the first failure leaves the window
	if w := th.wait("ip\x00admin"); w != 0 {
		t.Errorf("after the window: wait %v, want 0", w)
	}
	th.fail("ip\x00admin")
	if w := th.wait("ip\x00admin"); w == 0 {
		t.Error("5 failures within the window again, but not blocked")
	}
	th.reset("ip\x00admin")
	if w := th.wait("ip\x00admin"); w != 0 {
		t.Errorf("after reset: wait %v", w)
	}
	if len(th.failures) != 0 {
		t.Errorf("reset left %d keys", len(th.failures))
	}
}

func TestLoginThrottlePrunesExpiredKeys(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	th := newLoginThrottle(5, time.Minute)
	th.now = func() time.Time { return now }
	for i := range throttlePruneAbove + 1 {
		th.fail(string(rune(i)) + "\x00u")
	}
	now = now.Add(2 * time.Minute)
	th.fail("last")
	if len(th.failures) != 1 {
		t.Errorf("%d keys after pruning, want 1", len(th.failures))
	}
}
