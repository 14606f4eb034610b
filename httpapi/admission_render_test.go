package httpapi

import (
	"context"
	"testing"

	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/render"
)

// envelopeRenderer is a renderer that reports its capacity and the memory
// limit of its browsers, as render/chromium's pool does.
type envelopeRenderer struct {
	capacity int
	limit    int64
}

func (envelopeRenderer) Render(context.Context, *render.Request) (*render.Result, error) {
	return nil, render.ErrUnavailable
}
func (r envelopeRenderer) Capacity() int      { return r.capacity }
func (r envelopeRenderer) MemoryLimit() int64 { return r.limit }

// TestAdmissionBrowserMemory: the memory budget counts the browsers'
// memory on top of the server's, and each rendering reserves its share.
func TestAdmissionBrowserMemory(t *testing.T) {
	for _, tc := range []struct {
		name       string
		renderer   render.Renderer
		adm        *AdmissionOptions
		wantTotal  int64
		wantRender int64
	}{
		{"no renderer", nil, nil, DefaultMemoryBudget, renderMemory},
		{"the renderer's limit", envelopeRenderer{8, 1536 << 20}, nil, DefaultMemoryBudget + 1536<<20, renderMemory + 192<<20},
		{"explicit", envelopeRenderer{8, 1536 << 20}, &AdmissionOptions{MemoryBudget: 384 << 20, BrowserMemory: 1 << 30, MaxRenders: 4}, 384<<20 + 1<<30, renderMemory + 256<<20},
		{"negative: none", envelopeRenderer{8, 1536 << 20}, &AdmissionOptions{BrowserMemory: -1}, DefaultMemoryBudget, renderMemory},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := sqlstore.Open(context.Background(), ":memory:", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s, err := New(context.Background(), &Options{Store: st, Renderer: tc.renderer, Admission: tc.adm, Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.adm.mem.total != tc.wantTotal || s.adm.renderBytes() != tc.wantRender {
				t.Fatalf("budget %d MiB, a rendering reserves %d MiB; want %d and %d", s.adm.mem.total>>20, s.adm.renderBytes()>>20, tc.wantTotal>>20, tc.wantRender>>20)
			}
		})
	}
}
