package handlers

// pageRows is how many rows one page of the Logs or the Audit list shows;
// pageFetch is what a page asks the store for: one more row tells whether
// there is an older page.
const (
	pageRows  = 50
	pageFetch = pageRows + 1
)

// newestFirst is one page of rows listed newest first, fetched with the
// limit pageFetch. It answers the page and its links: older starts below the
// page's last row ("" on the last page), newest is the first page ("" when
// this is it).
func newestFirst[T any](rows []T, before int64, id func(*T) int64, link func(before int64) string) (page []T, older, newest string) {
	if len(rows) > pageRows {
		rows = rows[:pageRows]
		older = link(id(&rows[len(rows)-1]))
	}
	if before != 0 {
		newest = link(0)
	}
	return rows, older, newest
}
