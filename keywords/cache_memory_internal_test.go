package keywords

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/seokit/seokit/seo"
)

func answerOf(n int) *Suggestions {
	s := &Suggestions{Query: "q", Locale: "en-US", Sources: []string{"a"}, CachedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	for i := range n {
		v := i
		s.Suggestions = append(s.Suggestions, Keyword{Keyword: fmt.Sprintf("phrase %d", i), Volume: &v, Source: "a"})
	}
	return s
}

// TestMemCacheBound: the estimated size never exceeds the bound and the
// least recently used entries go first.
func TestMemCacheBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	one := newMemCache(1<<30, time.Hour, time.Hour).put(memKey("query 00", seo.Locale{Language: "en", Region: "US"}, 50), answerOf(50), 0, now).size
	c := newMemCache(10*one+one/2, time.Hour, time.Hour)
	loc := seo.Locale{Language: "en", Region: "US"}
	for i := range 30 {
		c.put(memKey(fmt.Sprintf("query %02d", i), loc, 50), answerOf(50), 0, now)
		if i == 20 {
			// Touch query 11 so it survives the next evictions.
			if _, ok := c.get(memKey("query 11", loc, 50), 0, now); !ok {
				t.Fatal("query 11 missing")
			}
		}
		if _, b := c.len(); b > c.max {
			t.Fatalf("after %d puts: %d bytes held, bound %d", i+1, b, c.max)
		}
	}
	n, _ := c.len()
	if n != 10 {
		t.Errorf("%d entries, want 10", n)
	}
	if _, ok := c.get(memKey("query 11", loc, 50), 0, now); !ok {
		t.Error("recently used query 11 was evicted")
	}
	if _, ok := c.get(memKey("query 12", loc, 50), 0, now); ok {
		t.Error("least recently used query 12 was kept")
	}
	// An answer larger than the whole bound is not kept.
	c.put("huge", answerOf(1000), 0, now)
	if _, ok := c.get("huge", 0, now); ok {
		t.Error("an answer above the bound was kept")
	}
}

func TestAnswerSizeGrows(t *testing.T) {
	t.Parallel()
	small, large := answerSize("k", answerOf(10)), answerSize("k", answerOf(100))
	// Each keyword costs at least its struct, its phrase and its volume.
	per := (large - small) / 90
	if small <= 0 || per < keywordSize+int64(len("phrase 10"))+8 {
		t.Errorf("sizes %d (10 keywords) and %d (100 keywords): %d bytes per keyword, below its struct size %d", small, large, per, keywordSize)
	}
}

// TestSameKeywordCoversEveryField: changing any one field of a Keyword
// makes sameKeyword report a difference, so a field added to Keyword
// without a comparison fails here.
func TestSameKeywordCoversEveryField(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[Keyword]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			var a, b Keyword
			v := reflect.ValueOf(&b).Elem().Field(i)
			switch v.Kind() {
			case reflect.String:
				v.SetString("x")
			case reflect.Bool:
				v.SetBool(true)
			case reflect.Int, reflect.Int64:
				v.SetInt(1)
			case reflect.Pointer:
				v.Set(reflect.New(f.Type.Elem()))
			case reflect.Slice:
				v.Set(reflect.MakeSlice(f.Type, 1, 1))
			case reflect.Struct:
				if f.Type != reflect.TypeFor[time.Time]() {
					t.Fatalf("field %s of type %s: extend this test", f.Name, f.Type)
				}
				v.Set(reflect.ValueOf(time.Unix(1, 0)))
			default:
				t.Fatalf("field %s of kind %s: extend this test", f.Name, v.Kind())
			}
			if sameKeyword(&a, &b) {
				t.Errorf("sameKeyword ignores field %s", f.Name)
			}
			if !sameKeyword(&b, &b) {
				t.Errorf("sameKeyword(x, x) is false with field %s set", f.Name)
			}
		})
	}
}

// TestAppendJSONMatchesEncodingJSON: AppendJSON writes what json.Marshal
// writes, using the precoded list only while the list is untouched.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	loc := seo.Locale{Language: "en", Region: "US"}
	base := answerOf(5)
	base.Query = `oak <table> & "chairs"`
	base.Suggestions[1].Monthly = []MonthlyVolume{{2026, 1, 10}}
	base.Suggestions[2].SearchConsole = &SearchConsoleStats{Clicks: 1, Impressions: 9}
	base.Suggestions[3].UpdatedAt = time.Date(2026, 2, 3, 4, 5, 6, 7, time.UTC)
	base.Suggestions[4].Keyword = "<script>é"
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	c := newMemCache(1<<20, time.Hour, time.Hour)

	tests := []struct {
		name    string
		change  func(s *Suggestions)
		precode bool // whether the precoded list must be used
	}{
		{"untouched", func(*Suggestions) {}, true},
		{"age and failed", func(s *Suggestions) { s.AgeSeconds = 42; s.Failed = []string{"x"} }, true},
		{"zero CachedAt", func(s *Suggestions) { s.CachedAt = time.Time{} }, true},
		{"nil sources", func(s *Suggestions) { s.Sources = nil }, true},
		{"element changed", func(s *Suggestions) { s.Suggestions[2].Keyword = "changed" }, false},
		{"volume pointer replaced", func(s *Suggestions) { v := 1; s.Suggestions[0].Volume = &v }, false},
		{"resliced", func(s *Suggestions) { s.Suggestions = s.Suggestions[1:] }, false},
		{"truncated", func(s *Suggestions) { s.Suggestions = s.Suggestions[:2] }, false},
		{"replaced by a copy", func(s *Suggestions) { s.Suggestions = slices.Clone(s.Suggestions) }, false},
		{"emptied", func(s *Suggestions) { s.Suggestions = nil }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keep := copyAnswer(base)
			keep.CachedAt = now
			e := c.put(memKey(tc.name, loc, 5), keep, 0, now)
			if e == nil || e.enc == nil {
				t.Fatal("not cached")
			}
			s := e.answer()
			tc.change(s)
			if used := s.pre.valid(s.Suggestions) != nil; used != tc.precode {
				t.Errorf("precoded list used: %v, want %v", used, tc.precode)
			}
			want, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.AppendJSON([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix"+string(want) {
				t.Errorf("AppendJSON:\n%s\nwant\n%s", got, want)
			}
		})
	}
	// A fresh answer has no precoded list.
	fresh := copyAnswer(base)
	want, _ := json.Marshal(fresh)
	if got, err := fresh.AppendJSON(nil); err != nil || string(got) != string(want) {
		t.Errorf("fresh: %s, %v\nwant %s", got, err, want)
	}
}
