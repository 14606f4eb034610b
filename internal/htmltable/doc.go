// Package htmltable is the table component of seokit's HTML reports (the
// crawler's site report, the analyzer's page report) and of the
// dashboard's analysis view: one stylesheet, one small script and the Go
// side that writes the markup.
//
// A [Table] is declared by its columns; its rows are embedded once in the
// page as JSON (see [Data]) in a <script type="application/json"> block,
// which is data, not code, under any Content-Security-Policy. The server
// writes the first page of rows in the default order, so a page shows data
// at first paint and without scripts; the script ([JS]) then sorts by any
// column, filters by text, severity and finding ID, and pages through the
// rows, rendering only one page of them at a time. Cells are laid out to
// the width of the page: URLs on one line, ellipsed, with the full value in
// the title and in the cell's text (so copying a cell copies the whole
// URL); below 700 px each row becomes a card whose URL and title take
// the card's width and URLs wrap, whole, since a phone has no hover.
//
// Adding a column is one line: a [Column] whose Key names a field of the
// rows (plus that field, where the rows are built).
package htmltable
