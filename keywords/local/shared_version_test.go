package local

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/seokit/seokit/keywords"
	"github.com/seokit/seokit/seo"
)

// TestImportByAnotherProcessVisible proves a keyword written through a
// second Store on the same file (the command line importing while the
// server runs) is suggested by the first Store's Suggester on its next
// poll of the database's change counter, not after the memory cache's
// hour-long lifetime.
func TestImportByAnotherProcessVisible(t *testing.T) {
	old := versionPoll
	versionPoll = 0 // every DataVersion reads the counter: no waiting on the clock
	t.Cleanup(func() { versionPoll = old })
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "seokit-data.db")
	server, err := Open(ctx, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	cli, err := Open(ctx, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	enUS, _ := seo.ParseLocale("en-US")
	vol := func(n int) *int { return &n }
	if err := cli.Put(ctx, []keywords.Keyword{{Keyword: "oak tables", Volume: vol(900), Source: "imported:test"}}, enUS); err != nil {
		t.Fatal(err)
	}
	sg := keywords.NewSuggester([]keywords.Source{server}, &keywords.SuggesterOptions{MemoryCacheTTL: time.Hour})
	has := func(phrase string) bool {
		res, err := sg.Suggest(ctx, "oak tables", enUS, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range res.Suggestions {
			if k.Keyword == phrase {
				return true
			}
		}
		return false
	}
	if !has("oak tables") || has("oak tables for sale") {
		t.Fatal("first answer is not what was stored")
	}
	before := server.DataVersion()
	if err := cli.Put(ctx, []keywords.Keyword{{Keyword: "oak tables for sale", Volume: vol(400), Source: "imported:test"}}, enUS); err != nil {
		t.Fatal(err)
	}
	if server.DataVersion() == before {
		t.Fatal("the server's DataVersion did not change with another process's write")
	}
	if !has("oak tables for sale") {
		t.Fatal("the keyword another process imported is not suggested: the cached answer was served")
	}
}
