package models_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"gateway/models"
	"gateway/models/dbtest"
)

// TestRequestLogEveryColumnRoundTrips fills every field of a RequestLog with
// a value of its own and reads the rows back: a column missing from the
// hand-written INSERT, or values given in the wrong order, show up here.
func TestRequestLogEveryColumnRoundTrips(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		created := time.Date(2026, 11, 30, 12, 0, 0, 123456000, time.UTC)
		var want []models.RequestLog
		for n := range 23 { // two full statements and a short one
			var l models.RequestLog
			v := reflect.ValueOf(&l).Elem()
			for i := range v.NumField() {
				f := v.Field(i)
				if v.Type().Field(i).Name == "ID" {
					continue
				}
				seed := int64(100*n + i + 1)
				switch f.Kind() {
				case reflect.String:
					f.SetString(fmt.Sprintf("field %d of row %d", i, n))
				case reflect.Int, reflect.Int64:
					f.SetInt(seed)
				case reflect.Float64:
					f.SetFloat(float64(seed) + 0.25)
				case reflect.Bool:
					f.SetBool(n%2 == 0)
				case reflect.Pointer:
					f.Set(reflect.ValueOf(&seed))
				case reflect.Struct:
					f.Set(reflect.ValueOf(created.Add(time.Duration(n) * time.Second)))
				case reflect.Slice:
					f.Set(reflect.ValueOf(testTrace(seed)))
				default:
					t.Fatalf("field %s: no test value for kind %s", v.Type().Field(i).Name, f.Kind())
				}
			}
			want = append(want, l)
		}
		if err := s.InsertRequestLogs(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListRequestLogs(ctx, models.LogFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("read back %d rows, want %d", len(got), len(want))
		}
		for i, g := range got {
			w := want[len(want)-1-i] // newest first
			if g.ID == 0 || !g.CreatedAt.Equal(w.CreatedAt) {
				t.Fatalf("row %d: id %d, created %v, want %v", i, g.ID, g.CreatedAt, w.CreatedAt)
			}
			g.ID, g.CreatedAt, w.CreatedAt = 0, time.Time{}, time.Time{}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("row %d read back as\n%+v\nwant\n%+v", i, g, w)
			}
		}
	})
}

// TestRequestLogZeroColumnsRoundTrip: a statement leaves out the columns
// none of its rows sets; rows that set one column each, and a row that sets
// none, read back exactly, zeros included.
func TestRequestLogZeroColumnsRoundTrip(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		created := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		var want []models.RequestLog
		for field := range reflect.TypeFor[models.RequestLog]().NumField() {
			var l models.RequestLog
			v := reflect.ValueOf(&l).Elem()
			switch f := v.Field(field); f.Kind() {
			case reflect.String:
				f.SetString("set")
			case reflect.Int, reflect.Int64:
				f.SetInt(7)
			case reflect.Float64:
				f.SetFloat(0.5)
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Pointer:
				seven := int64(7)
				f.Set(reflect.ValueOf(&seven))
			case reflect.Slice:
				f.Set(reflect.ValueOf(testTrace(7)))
			}
			l.ID, l.CreatedAt = 0, created.Add(time.Duration(field)*time.Second)
			want = append(want, l)
		}
		want = append(want, models.RequestLog{CreatedAt: created.Add(time.Hour)}) // nothing set
		if err := s.InsertRequestLogs(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListRequestLogs(ctx, models.LogFilter{Limit: 100})
		if err != nil || len(got) != len(want) {
			t.Fatalf("read back %d rows (%v), want %d", len(got), err, len(want))
		}
		for i, g := range got {
			w := want[len(want)-1-i]
			if !g.CreatedAt.Equal(w.CreatedAt) {
				t.Fatalf("row %d: created %v, want %v", i, g.CreatedAt, w.CreatedAt)
			}
			g.ID, g.CreatedAt, w.CreatedAt = 0, time.Time{}, time.Time{}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("row %d read back as\n%+v\nwant\n%+v", i, g, w)
			}
		}
	})
}

// A row without a time gets the time it was written, as GORM gives it.
func TestRequestLogWithoutTimeGetsNow(t *testing.T) {
	dbtest.EachStore(t, func(t *testing.T, s *models.Store) {
		before := time.Now().Add(-time.Second)
		if err := s.InsertRequestLogs(context.Background(), []models.RequestLog{{Model: "m"}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListRequestLogs(context.Background(), models.LogFilter{})
		if err != nil || len(got) != 1 {
			t.Fatalf("%v, %d rows", err, len(got))
		}
		if c := got[0].CreatedAt; c.Before(before) || c.After(time.Now().Add(time.Second)) {
			t.Fatalf("created_at %v, want about now", c)
		}
	})
}

// testTrace is a trace of two attempts whose every field comes from seed.
func testTrace(seed int64) models.Trace {
	tr := models.Trace{}
	for i := range int64(2) {
		n := seed*10 + i
		tr = append(tr, models.Attempt{DeploymentID: n, Provider: fmt.Sprint("provider ", n), UpstreamModel: fmt.Sprint("model ", n),
			Status: int(400 + n%100), StartMS: n + 1, LatencyMS: n + 2, Reason: fmt.Sprint("reason ", n),
			Error: fmt.Sprint("error ", n), Fallback: fmt.Sprint("pool ", n)})
	}
	return tr
}
