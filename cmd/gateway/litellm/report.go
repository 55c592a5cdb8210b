package litellm

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// sections are the report's sections in the order of the writes.
var sections = []struct{ key, title string }{
	{"providers", "Providers"},
	{"entries", "Model entries"},
	{"pools", "Pool settings"},
	{"fallbacks", "Fallbacks"},
}

// PrintReport prints each step, what was not mapped and what this
// gateway did not take, then a summary line.
func PrintReport(w io.Writer, plan *Plan, rep *Report, dryRun bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, sec := range sections {
		fmt.Fprintln(tw, sec.title+":")
		n := 0
		for _, s := range rep.steps {
			if s.section == sec.key {
				fmt.Fprintf(tw, "  %s\t%s\n", s.verb, strings.Join(s.cols, "\t"))
				n++
			}
		}
		if n == 0 {
			fmt.Fprintln(tw, "  none in this file")
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(plan.Unmapped) > 0 {
		fmt.Fprintln(w, "Not mapped (the gateway has no place for these; they were left out, not guessed):")
		for _, u := range plan.Unmapped {
			fmt.Fprintln(w, "  "+u)
		}
	}
	if len(rep.notApplied) > 0 {
		fmt.Fprintln(w, "Not applied (this gateway does not take these fields yet):")
		for _, f := range slices.Sorted(maps.Keys(rep.notApplied)) {
			fmt.Fprintf(w, "  %s: %s\n", f, strings.Join(rep.notApplied[f], "; "))
		}
	}
	_, err := fmt.Fprintln(w, rep.summary(dryRun))
	return err
}
