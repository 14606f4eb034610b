package htmltable

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDataEncodesLikeJSON(t *testing.T) {
	rows := []Row{
		{"url": "https://x.example/</script><script>alert(1)</script><!--", "n": 3, "f": 1.25, "nil": nil, "list": []string{"a&b", "\u2028\u2029"}},
		{"s": "quote \" backslash \\ tab \t nl \n ctl \x01 bad \xff é", "none": []string(nil), "any": []any{"x", 1.0}, "b": true},
	}
	tbl := &Table{Name: "t", Rows: rows}
	got, err := Data(tbl)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(map[string][]Row{"t": rows})
	if string(got) != string(want) {
		t.Errorf("Data\n got %s\nwant %s", got, want)
	}
	for _, bad := range []string{"<", ">", "&", "\u2028"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("data contains %q", bad)
		}
	}
}

func TestHTMLFirstPage(t *testing.T) {
	tbl := &Table{Name: "p", Label: "Pages", PageSize: 2, IDKey: "ids", SevKey: "sev", Search: true, Columns: []Column{
		{Key: "url", Label: "URL", Kind: URL},
		{Key: "depth", Label: "Depth", Kind: Num, Null: "not linked"},
		{Key: "score", Label: "Score", Kind: Num, Hint: "why"},
		{Key: "ids", Label: "Findings", Kind: List},
	}, Rows: []Row{
		{"url": "https://a.example/<b>", "depth": nil, "score": nil, "why": "not fetched", "ids": []string{"b.x", "a.y"}},
		{"url": "https://b.example/", "depth": 2, "score": 90.0},
		{"url": "https://c.example/", "depth": 1, "score": 80},
	}}
	h, err := tbl.HTML()
	if err != nil {
		t.Fatal(err)
	}
	out := string(h)
	for _, want := range []string{
		`title="https://a.example/&lt;b&gt;">https://a.example/&lt;b&gt;</td>`,
		`<td class="k-num" data-label="Depth">not linked</td>`,
		`<td class="k-num" data-label="Score" title="not fetched">—</td>`,
		`<option value="a.y">a.y</option><option value="b.x">b.x</option>`,
		`1–2 of 3`, `1 / 2`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "c.example") {
		t.Error("rows past the first page rendered")
	}
}

// TestCellTextPointers checks that nullable values (a *int score or depth)
// show as their value or the column's null text, never as an address.
func TestCellTextPointers(t *testing.T) {
	seven, half := 7, 0.5
	tests := []struct {
		c    Column
		v    any
		want string
	}{
		{Column{Kind: Num}, &seven, "7"},
		{Column{Kind: Num, Digits: 1}, &half, "0.5"},
		{Column{Kind: Num, Null: "not linked"}, (*int)(nil), "not linked"},
		{Column{Kind: Num}, (*int)(nil), "—"},
		{Column{Kind: Num}, nil, "—"},
	}
	for _, tt := range tests {
		if got := cellText(tt.c, tt.v); got != tt.want {
			t.Errorf("cellText(%+v, %#v) = %q, want %q", tt.c, tt.v, got, tt.want)
		}
	}
	tbl := &Table{Name: "p", Columns: []Column{{Key: "score", Label: "Score", Kind: Num}}, Rows: []Row{{"score": &seven}, {"score": (*int)(nil)}}}
	h, err := tbl.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(h), "0x") || strings.Contains(string(h), "nil") {
		t.Errorf("first page shows a pointer: %s", h)
	}
}
