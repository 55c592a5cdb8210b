package handlers

import (
	"net/url"
	"testing"
	"time"
)

// TestQueryReaders: a parameter left out keeps its value, a bad one is a
// 400 that names it.
func TestQueryReaders(t *testing.T) {
	q := url.Values{"id": {"12"}, "zero": {"0"}, "word": {"x"}, "huge": {"99999999999999999999"},
		"at": {"2026-11-30T00:00:00Z"}, "day": {"2026-11-30"}}
	for _, tc := range []struct {
		param   string
		want    int64
		wantErr string
	}{
		{"id", 12, ""},
		{"absent", 7, ""},
		{"zero", 7, "zero: must be a positive integer"},
		{"word", 7, "word: must be a positive integer"},
		{"huge", 7, "huge: must be a positive integer"},
	} {
		t.Run(tc.param, func(t *testing.T) {
			got := int64(7)
			err := queryPositive(q, tc.param, &got)
			if got != tc.want || errText(err) != tc.wantErr {
				t.Errorf("queryPositive(%s) = %d, %q; want %d, %q", tc.param, got, errText(err), tc.want, tc.wantErr)
			}
			n := int(7)
			if err := queryPositive(q, tc.param, &n); int64(n) != tc.want || errText(err) != tc.wantErr {
				t.Errorf("queryPositive(%s) as int = %d, %q; want %d, %q", tc.param, n, errText(err), tc.want, tc.wantErr)
			}
		})
	}
	var at time.Time
	if err := queryTime(q, "at", &at); err != nil || !at.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("queryTime(at) = %v, %v", at, err)
	}
	kept := at
	if err := queryTime(q, "absent", &at); err != nil || !at.Equal(kept) {
		t.Errorf("queryTime(absent) = %v, %v; want it kept", at, err)
	}
	want := "day: must be an RFC 3339 time such as 2026-11-30T00:00:00Z"
	if err := queryTime(q, "day", &at); errText(err) != want || !at.Equal(kept) {
		t.Errorf("queryTime(day) = %v, %q; want %q", at, errText(err), want)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
