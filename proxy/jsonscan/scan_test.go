package jsonscan

import (
	"strings"
	"testing"
)

func TestCountElements(t *testing.T) {
	const limit = 100_000 // as many messages as a chat request may hold
	for _, tc := range []struct {
		array string
		want  int
	}{
		{`[]`, 0},
		{`[ ]`, 0},
		{`[1]`, 1},
		{`[{"a":[1,2,{"b":"],["}]}, "x,y", [], null , 3.5e2]`, 5},
	} {
		if got := CountElements([]byte(tc.array), 0, limit); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.array, got, tc.want)
		}
	}
	exact := `[` + strings.Repeat(`{},`, limit-1) + `{}]`
	if got := CountElements([]byte(exact), 0, limit); got != limit {
		t.Errorf("exactly the limit: got %d", got)
	}
	if got := CountElements([]byte(`[`+strings.Repeat(`1,`, limit+50)+`1]`), 0, limit); got <= limit {
		t.Errorf("over the limit: got %d, want more than %d", got, limit)
	}
}
