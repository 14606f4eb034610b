package httpapi

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/seokit/seokit/crawler"
)

// openAPIDoc is the OpenAPI 3.1 description of the API, with servers
// [{"url": "/"}].
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns a copy of the API's OpenAPI 3.1 document (JSON). Its
// paths are those of a handler mounted at the root; servers is "/".
func OpenAPI() []byte {
	return append([]byte(nil), openAPIDoc...)
}

// openAPIFor returns the document with servers set to basePath, for a
// handler mounted under a prefix. It is computed once per prefix.
var openAPIBase sync.Map // basePath -> []byte

func openAPIFor(basePath string) []byte {
	if basePath == "" {
		return openAPIDoc
	}
	if b, ok := openAPIBase.Load(basePath); ok {
		return b.([]byte)
	}
	var doc map[string]any
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		return openAPIDoc // the embedded document is checked by the tests
	}
	doc["servers"] = []any{map[string]any{"url": basePath, "description": "The prefix this API is mounted under."}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return openAPIDoc
	}
	b = append(b, '\n')
	openAPIBase.Store(basePath, b)
	return b
}

// serveOpenAPI serves GET /v1/openapi.json. No credential is needed.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	openAPIHandler(s.opts.BasePath)(w, r)
}

// openAPIHandler serves the document for a handler mounted at basePath.
func openAPIHandler(basePath string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeOpenAPI(w, r, openAPIFor(basePath))
	}
}

// configSchema is crawler.ConfigSchema, generated once.
var configSchema = sync.OnceValue(crawler.ConfigSchema)

// serveConfigSchema serves GET /v1/schemas/crawl-config.json, the JSON
// Schema of a crawl configuration (crawler.Config, the options of a site
// analysis without the rendering ones). No credential is needed.
func serveConfigSchema(w http.ResponseWriter, r *http.Request) {
	writeOpenAPI(w, r, configSchema())
}

func writeOpenAPI(w http.ResponseWriter, r *http.Request, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}
