package proxy

import (
	"testing"
	"time"
)

func TestCoolDownNeverShortens(t *testing.T) {
	var st memberState
	now := time.Unix(1_800_000_000, 0)
	if !st.coolDown(now, 100*time.Second, "first") {
		t.Fatal("the first cooldown did not take")
	}
	if st.coolDown(now.Add(time.Second), 10*time.Second, "shorter") {
		t.Fatal("a shorter cooldown moved the deadline")
	}
	until, reason, ok := st.cooldown(now)
	if !ok || !until.Equal(now.Add(100*time.Second)) || reason != "first" {
		t.Fatalf("cooldown %v %q %v", until, reason, ok)
	}
	if !st.coolDown(now, 200*time.Second, "longer") {
		t.Fatal("a longer cooldown did not extend the deadline")
	}
	if st.cooldownLeft(now.Add(150*time.Second)) != 50*time.Second || st.coolingDown(now.Add(201*time.Second)) {
		t.Fatal("deadline wrong after extending")
	}
}

func TestFailureRules(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	t.Run("allowed fails", func(t *testing.T) {
		var st memberState
		for i := 1; i <= 3; i++ {
			if st.countFailure(now, 3) {
				t.Fatalf("tripped after %d failures with allowed_fails 3", i)
			}
		}
		if !st.countFailure(now, 3) {
			t.Fatal("a 4th failure did not trip")
		}
	})
	t.Run("failure rate", func(t *testing.T) {
		var st memberState
		st.countSuccess(now)
		st.countSuccess(now)
		st.countFailure(now, 100)
		if st.countFailure(now, 100) {
			t.Fatal("2 of 4 tripped: the rate needs at least 5 requests and more than half")
		}
		if !st.countFailure(now, 100) {
			t.Fatal("3 failures of 5 requests did not trip")
		}
	})
	t.Run("the window is one minute", func(t *testing.T) {
		var st memberState
		for range 3 {
			st.countFailure(now, 3)
		}
		if st.countFailure(now.Add(61*time.Second), 3) {
			t.Fatal("failures older than a minute still counted")
		}
	})
}
