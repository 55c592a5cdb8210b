package handlers

// newestFirst is one page of rows listed newest first, fetched with a limit
// of size+1 so that the extra row tells whether an older page exists. It
// answers the page and its links: older starts below the page's last row
// ("" on the last page), newest is the first page ("" when this is it).
func newestFirst[T any](rows []T, size int, before int64, id func(*T) int64, link func(before int64) string) (page []T, older, newest string) {
	if len(rows) > size {
		rows = rows[:size]
		older = link(id(&rows[len(rows)-1]))
	}
	if before != 0 {
		newest = link(0)
	}
	return rows, older, newest
}
