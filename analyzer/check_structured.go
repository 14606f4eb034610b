package analyzer

import (
	"bufio"
	"bytes"
	_ "embed" // schema.org type list
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seokit/seokit/seo"
)

//go:embed data/schemaorg-types.txt
var sdTypesFile []byte

// sdKnownTypes is the schema.org type vocabulary, loaded once.
var sdKnownTypes = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, 1024)
	sc := bufio.NewScanner(bytes.NewReader(sdTypesFile))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		m[line] = true
	}
	return m
})

func init() {
	registerExtractor(extractStructured)
	register(Check{
		Area:  "structured_data",
		Depth: Complete,
		IDs: []seo.CheckInfo{
			{ID: "structured_data.jsonld_parse_error", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A JSON-LD script block is not valid JSON and is ignored.",
				Source: "JSON-LD 1.1 (https://www.w3.org/TR/json-ld11/); Google Search Central, structured data general guidelines (https://developers.google.com/search/docs/appearance/structured-data/sd-policies); Screaming Frog SEO Spider"},
			{ID: "structured_data.context_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A top-level JSON-LD object has no @context naming schema.org (as a string, in an array, or as @vocab or a prefix of a context object).",
				Source: "seokit's own rule, after JSON-LD 1.1 (https://www.w3.org/TR/json-ld11/) and schema.org (https://schema.org/)"},
			{ID: "structured_data.type_missing", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A top-level JSON-LD item or @graph member has no @type.",
				Source: "seokit's own rule, after schema.org (https://schema.org/) and Google Search Central, structured data general guidelines (https://developers.google.com/search/docs/appearance/structured-data/sd-policies)"},
			{ID: "structured_data.type_unknown", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "A @type that resolves to schema.org is not in the bundled schema.org vocabulary.",
				Source:  "schema.org vocabulary (https://schema.org/docs/full.html); Screaming Frog SEO Spider",
				Differs: "types of other vocabularies (a prefix or IRI outside schema.org) are not judged, nor unprefixed types when a remote context other than schema.org's is in force: seokit does not fetch contexts, and such a context may define them"},
			{ID: "structured_data.invalid_date", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A date or time property is not an ISO 8601 value its schema.org range allows (Date, DateTime, or Time where the range has Time).",
				Source: "seokit's own rule, after schema.org Date, DateTime and Time (ISO 8601, https://schema.org/DateTime, https://schema.org/Time) and each property's range, and Google Search Central, structured data general guidelines (https://developers.google.com/search/docs/appearance/structured-data/sd-policies)"},
			{ID: "structured_data.article.missing_recommended", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An Article, NewsArticle or BlogPosting lacks headline, image, datePublished or author.",
				Source: "Google Search Central, article structured data (https://developers.google.com/search/docs/appearance/structured-data/article); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.product.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A Product lacks name, or has none of offers, review and aggregateRating.",
				Source: "Google Search Central, product structured data (https://developers.google.com/search/docs/appearance/structured-data/product); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.breadcrumb.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A BreadcrumbList or one of its ListItems lacks a required property.",
				Source: "Google Search Central, breadcrumb structured data (https://developers.google.com/search/docs/appearance/structured-data/breadcrumb); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.faq.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A FAQPage lacks mainEntity, or a Question lacks name or acceptedAnswer text.",
				Source: "Google Search Central, faqpage structured data (https://developers.google.com/search/docs/appearance/structured-data/faqpage); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.organization.missing_recommended", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "An Organization lacks name or url, or its logo is not an absolute URL.",
				Source: "Google Search Central, organization structured data (https://developers.google.com/search/docs/appearance/structured-data/organization); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.local_business.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A LocalBusiness or subtype lacks name or address.",
				Source: "Google Search Central, local business structured data (https://developers.google.com/search/docs/appearance/structured-data/local-business); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.event.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "An Event lacks name, startDate or location.",
				Source: "Google Search Central, event structured data (https://developers.google.com/search/docs/appearance/structured-data/event); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.recipe.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A Recipe lacks name or image.",
				Source: "Google Search Central, recipe structured data (https://developers.google.com/search/docs/appearance/structured-data/recipe); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.job_posting.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A JobPosting lacks a required property.",
				Source: "Google Search Central, job posting structured data (https://developers.google.com/search/docs/appearance/structured-data/job-posting); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.video.missing_required", Severity: seo.Warning, Scope: seo.ScopePage, Summary: "A VideoObject lacks name, thumbnailUrl or uploadDate.",
				Source: "Google Search Central, video structured data (https://developers.google.com/search/docs/appearance/structured-data/video); Screaming Frog SEO Spider (Google rich result validation)"},
			{ID: "structured_data.microdata_unparsed", Severity: seo.Notice, Scope: seo.ScopePage, Summary: "Microdata or RDFa is present; it is detected but not validated.",
				Source: "seokit's own notice: microdata is valid (Google Search Central, structured data general guidelines (https://developers.google.com/search/docs/appearance/structured-data/sd-policies)) but seokit does not parse it, so its types are not checked"},
		},
		Run: checkStructured,
	})
}

// sdBlock is one <script type="application/ld+json"> block, decoded once by
// the extractor and validated by the check.
type sdBlock struct {
	node  *html.Node
	index int // 1-based position among the page's JSON-LD blocks
	// value is the decoded JSON (json.Number for numbers) with schema.org
	// terms resolved (sdNormalize); nil when err != nil.
	value any
	// unknown are the @type values that resolve to the schema.org
	// vocabulary but are not in it, in document order.
	unknown []string
	err     error
}

// sdStore keeps the decoded blocks on the page so the check does not
// decode them again.
func sdStore(p *Page, blocks []sdBlock) { p.jsonld = blocks }

func sdLoad(p *Page) []sdBlock {
	if p.jsonld != nil {
		return p.jsonld
	}
	return sdDecodeAll(p)
}

// sdIsJSONLD reports whether a <script> holds JSON-LD.
func sdIsJSONLD(n *html.Node) bool {
	t, _ := Attr(n, "type")
	t, _, _ = strings.Cut(t, ";")
	return strings.EqualFold(strings.TrimSpace(t), "application/ld+json")
}

// sdScriptText returns a script's raw text.
func sdScriptText(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
		return c.Data
	}
	var sb strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			sb.WriteString(c.Data)
		}
	}
	return sb.String()
}

// sdUnwrap removes what real sites wrap JSON-LD in: an HTML comment, a
// CDATA section (optionally behind //), and trailing semicolons.
func sdUnwrap(s string) string {
	s = strings.TrimSpace(s)
	for changed := true; changed; {
		changed = false
		for _, pre := range [...]string{"<!--", "//<![CDATA[", "<![CDATA["} {
			if strings.HasPrefix(s, pre) {
				s, changed = strings.TrimSpace(s[len(pre):]), true
			}
		}
		for _, suf := range [...]string{"-->", "//]]>", "]]>", ";"} {
			if strings.HasSuffix(s, suf) {
				s, changed = strings.TrimSpace(s[:len(s)-len(suf)]), true
			}
		}
	}
	return s
}

// sdDecode decodes one block's text; trailing data after the value is an error.
func sdDecode(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	var extra any
	if err := dec.Decode(&extra); err == nil {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

func sdDecodeAll(p *Page) []sdBlock {
	var blocks []sdBlock
	for _, n := range p.ByTag(atom.Script) {
		if !sdIsJSONLD(n) {
			continue
		}
		text := sdUnwrap(sdScriptText(n))
		if text == "" {
			continue
		}
		b := sdBlock{node: n, index: len(blocks) + 1}
		b.value, b.err = sdDecode(text)
		if b.err == nil {
			var st sdNormState
			b.value = sdNormalize(b.value, sdContext{}, &st)
			b.unknown = st.unknown
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// sdItem is one JSON-LD item of a block.
type sdItem struct {
	obj map[string]any
	// isTop marks a top-level object, which must carry the @context;
	// container marks a top-level object that only wraps a @graph.
	isTop     bool
	container bool
}

// sdItems returns the items of a decoded block: top-level objects, the
// objects of a top-level array, and the members of @graph.
func sdItems(v any) []sdItem {
	var out []sdItem
	var tops []map[string]any
	switch t := v.(type) {
	case map[string]any:
		tops = append(tops, t)
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				tops = append(tops, m)
			}
		}
	}
	for _, top := range tops {
		g, hasGraph := top["@graph"]
		_, typed := top["@type"]
		out = append(out, sdItem{obj: top, isTop: true, container: hasGraph && !typed})
		if !hasGraph {
			continue
		}
		members, ok := g.([]any)
		if !ok {
			members = []any{g}
		}
		for _, m := range members {
			if mo, ok := m.(map[string]any); ok {
				out = append(out, sdItem{obj: mo})
			}
		}
	}
	return out
}

// sdTypes returns an object's @type values (resolved by sdNormalize).
func sdTypes(obj map[string]any) []string {
	var out []string
	add := func(v any) {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	switch t := obj["@type"].(type) {
	case []any:
		for _, e := range t {
			add(e)
		}
	default:
		add(t)
	}
	return out
}

// sdShortType strips "schema:" and a schema.org IRI prefix
// ("https://schema.org/", also www. and extension hosts such as
// health-lifesci.schema.org) from a type name, for markup without a JSON-LD
// context (microdata itemtype, RDFa typeof).
func sdShortType(s string) string {
	if rest, ok := sdSchemaIRI(s); ok && rest != "" {
		return rest
	}
	if len(s) > 7 && strings.EqualFold(s[:7], "schema:") {
		return s[7:]
	}
	return s
}

// sdSchemaIRI reports whether s is an http(s) IRI on schema.org (the bare
// host, www., or an extension host like health-lifesci.schema.org) and
// returns what follows the host's "/" ("" for the namespace itself).
func sdSchemaIRI(s string) (rest string, ok bool) {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	var after string
	switch {
	case strings.HasPrefix(low, "https://"):
		after = s[len("https://"):]
	case strings.HasPrefix(low, "http://"):
		after = s[len("http://"):]
	default:
		return "", false
	}
	host, path, _ := strings.Cut(after, "/")
	host = strings.ToLower(host)
	if host != "schema.org" && !strings.HasSuffix(host, ".schema.org") {
		return "", false
	}
	return path, true
}

// sdContext is what seokit reads from JSON-LD @context values in force:
// which terms are schema.org's. Remote contexts are not fetched; schema.org's
// own is known (it sets schema.org as the vocabulary and aliases "type" and
// "id" to @type and @id), any other one may define terms seokit cannot see.
type sdContext struct {
	// schema: the context names schema.org (its context document, an
	// @vocab, or a prefix or term mapping to it).
	schema bool
	// vocab: unprefixed terms expand to schema.org.
	vocab bool
	// foreign: a context seokit cannot read (a remote one other than
	// schema.org's, or an @vocab elsewhere) may define unprefixed terms, so
	// a type not in schema.org is not judged unknown.
	foreign bool
	// prefixes maps a prefix to whether it names schema.org's namespace;
	// terms maps a term to the schema.org name it stands for, or to a
	// keyword ("type": "@type").
	prefixes map[string]bool
	terms    map[string]string
}

// sdSchemaContextIRI reports whether a context string names schema.org's
// context: the namespace (http or https, with or without www. and a
// trailing slash) or its context document (docs/jsonldcontext.json(ld)).
func sdSchemaContextIRI(s string) bool {
	rest, ok := sdSchemaIRI(s)
	return ok && (rest == "" || strings.HasPrefix(rest, "docs/jsonldcontext."))
}

// Bounds of what is read from JSON-LD contexts, so that a hostile block
// (thousands of nested contexts, each defining thousands of terms) costs
// work in proportion to its size: the terms and prefixes in force, and the
// contexts applied per block (further ones are ignored, their objects
// keeping the context of their parent).
const (
	sdMaxTerms    = 256
	sdMaxContexts = 256
)

// with returns c updated by the @context value v, per JSON-LD 1.1 section
// 4.1: later contexts override earlier ones, null clears them. The maps
// are copied once per call: a context applies to the object holding it and
// its children, never to its siblings.
func (c sdContext) with(v any) sdContext {
	switch t := v.(type) {
	case nil:
		return sdContext{}
	case string:
		if sdSchemaContextIRI(t) {
			c.schema, c.vocab = true, true
			c = c.own()
			c.term("type", "@type")
			c.term("id", "@id")
		} else {
			c.foreign = true
		}
	case []any:
		for i, e := range t {
			if i == sdMaxContexts {
				break
			}
			c = c.with(e)
		}
	case map[string]any:
		c = c.own()
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			iri := t[k]
			if def, ok := iri.(map[string]any); ok {
				iri = def["@id"]
			}
			s, ok := iri.(string)
			if !ok {
				continue
			}
			switch {
			case k == "@vocab":
				if rest, ok := sdSchemaIRI(s); ok && rest == "" {
					c.schema, c.vocab = true, true
				} else {
					c.vocab, c.foreign = false, true
				}
			case strings.HasPrefix(k, "@"):
				// @base, @language, @version ...: no terms.
			case strings.HasPrefix(s, "@"):
				c.term(k, s)
			default:
				rest, isSchema := sdSchemaIRI(s)
				if !isSchema {
					if p, name, ok := strings.Cut(s, ":"); ok {
						schemaPrefix, defined := c.prefixes[p]
						if schemaPrefix || (!defined && strings.EqualFold(p, "schema")) {
							rest, isSchema = name, true
						}
					}
				}
				switch {
				case isSchema && rest == "":
					c.prefix(k, true)
					c.schema = true
				case isSchema:
					c.term(k, rest)
				default:
					c.prefix(k, false)
				}
			}
		}
	}
	return c
}

// own returns c with maps of its own, which term and prefix then change.
func (c sdContext) own() sdContext {
	terms := make(map[string]string, len(c.terms)+2)
	for a, b := range c.terms {
		terms[a] = b
	}
	prefixes := make(map[string]bool, len(c.prefixes)+1)
	for a, b := range c.prefixes {
		prefixes[a] = b
	}
	c.terms, c.prefixes = terms, prefixes
	return c
}

// full reports whether sdMaxTerms terms and prefixes are in force.
func (c sdContext) full() bool { return len(c.terms)+len(c.prefixes) >= sdMaxTerms }

// term defines term k as v (a schema.org name or a keyword); a prefix of
// the same name no longer applies.
func (c sdContext) term(k, v string) {
	if _, ok := c.terms[k]; ok || !c.full() {
		delete(c.prefixes, k)
		c.terms[k] = v
	}
}

// prefix defines k as a prefix, naming schema.org's namespace or not.
func (c sdContext) prefix(k string, schema bool) {
	if _, ok := c.prefixes[k]; ok || !c.full() {
		delete(c.terms, k)
		c.prefixes[k] = schema
	}
}

// resolve maps a term, compact IRI or IRI to its schema.org name. schema
// says the name is schema.org's; judged says seokit can tell whether a
// type so named exists (false when a context it cannot read may define it).
// Without a context, and for the customary "schema:" prefix, names are
// taken as schema.org's, as search engines do.
func (c sdContext) resolve(name string) (short string, schema, judged bool) {
	if t, ok := c.terms[name]; ok {
		return t, !strings.HasPrefix(t, "@"), true
	}
	if rest, ok := sdSchemaIRI(name); ok {
		return rest, true, true
	}
	if p, rest, ok := strings.Cut(name, ":"); ok {
		if isSchema, defined := c.prefixes[p]; defined {
			if isSchema {
				return rest, true, true
			}
			return name, false, false
		}
		if strings.EqualFold(p, "schema") {
			return rest, true, true
		}
		return name, false, false // another vocabulary's IRI
	}
	if c.foreign {
		return name, true, false
	}
	return name, true, true
}

// sdNormalize returns v with the @context in force applied: keys aliased
// to keywords become the keyword ("type" under schema.org's context is
// @type), schema.org properties and types lose their prefix or IRI
// ("schema:startDate", "https://schema.org/Event"), names of other
// vocabularies keep theirs. @context values are kept as written. Types
// that resolve to schema.org but are not in its vocabulary are appended to
// unknown.
func sdNormalize(v any, c sdContext, st *sdNormState) any {
	switch t := v.(type) {
	case map[string]any:
		if cv, ok := t["@context"]; ok && st.contexts < sdMaxContexts {
			st.contexts++
			c = c.with(cv)
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(map[string]any, len(t))
		for _, k := range keys {
			val := t[k]
			key := k
			if k == "@context" {
				out[k] = val
				continue
			}
			if !strings.HasPrefix(k, "@") {
				if short, schema, _ := c.resolve(k); schema || strings.HasPrefix(short, "@") {
					key = short
				}
			}
			if _, dup := out[key]; dup {
				key = k // "name" and "schema:name" both written: keep both
			}
			if key == "@type" {
				out[key] = sdNormalizeTypes(val, c, &st.unknown)
				continue
			}
			out[key] = sdNormalize(val, c, st)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = sdNormalize(e, c, st)
		}
		return out
	}
	return v
}

// sdNormState is what sdNormalize gathers over one block: the unknown
// types, and the contexts applied so far.
type sdNormState struct {
	unknown  []string
	contexts int
}

func sdNormalizeTypes(v any, c sdContext, unknown *[]string) any {
	one := func(e any) any {
		s, ok := e.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return e
		}
		short, schema, judged := c.resolve(strings.TrimSpace(s))
		if schema && judged && !sdKnownTypes()[short] {
			*unknown = append(*unknown, short)
		}
		return short
	}
	if list, ok := v.([]any); ok {
		out := make([]any, len(list))
		for i, e := range list {
			out[i] = one(e)
		}
		return out
	}
	return one(v)
}

// sdSchemaContext reports whether a @context value names schema.org.
func sdSchemaContext(v any) bool {
	return sdContext{}.with(v).schema
}

// sdSchemaItem reports whether an untyped item says anything in
// schema.org's vocabulary: a @graph member holding only @id and other
// vocabularies' properties (rdfa:usesVocabulary) is no schema.org item.
func sdSchemaItem(obj map[string]any) bool {
	for k := range obj {
		if !strings.HasPrefix(k, "@") && !strings.Contains(k, ":") {
			return true
		}
	}
	return false
}

// extractStructured fills Report.StructuredData with JSON-LD items (their
// @types, including @graph members) and microdata and RDFa items, and keeps
// the decoded JSON-LD for the check.
func extractStructured(p *Page) {
	if !p.IsHTML {
		return
	}
	blocks := sdDecodeAll(p)
	for _, b := range blocks {
		if b.err != nil {
			continue
		}
		for _, it := range sdItems(b.value) {
			if it.container {
				continue
			}
			p.Report.StructuredData = append(p.Report.StructuredData, StructuredItem{Syntax: "json-ld", Types: sdNonNil(sdTypes(it.obj))})
		}
	}
	for _, n := range p.sdEls {
		if n.Namespace != "" {
			continue
		}
		if _, ok := Attr(n, "itemscope"); ok {
			if _, prop := Attr(n, "itemprop"); !prop {
				t, _ := Attr(n, "itemtype")
				p.Report.StructuredData = append(p.Report.StructuredData, StructuredItem{Syntax: "microdata", Types: sdTypeList(t)})
			}
		}
		if t, ok := Attr(n, "typeof"); ok {
			if _, prop := Attr(n, "property"); !prop {
				p.Report.StructuredData = append(p.Report.StructuredData, StructuredItem{Syntax: "rdfa", Types: sdTypeList(t)})
			}
		}
	}
	if len(blocks) > 0 && p.cfg.Depth.Includes(Complete) {
		sdStore(p, blocks)
	}
}

func sdNonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sdTypeList splits an itemtype or typeof value into short type names.
func sdTypeList(v string) []string {
	out := []string{}
	for _, f := range strings.Fields(v) {
		out = append(out, sdShortType(f))
	}
	return out
}

// Temporal kinds of schema.org values.
const (
	sdDate uint8 = 1 << iota
	sdDateTime
	sdTime
)

// sdDateProps are the schema.org properties whose values are dates or
// times, with the kinds their range allows (schema.org, each property's
// "Values expected to be one of these types"). A Date and a DateTime are
// both accepted wherever either is (a date is a date-time to the day, and
// search engines read both); a Time is accepted only where the range has
// Time: doorTime, startTime/endTime, checkinTime/checkoutTime,
// arrivalTime/departureTime and availabilityStarts/Ends (DateTime or Time),
// opens and closes (Time only).
var sdDateProps = func() map[string]uint8 {
	m := map[string]uint8{}
	for _, p := range strings.Fields(`datePublished dateModified dateCreated startDate endDate uploadDate datePosted
		validThrough validFrom priceValidUntil birthDate deathDate foundingDate dissolutionDate expires dateIssued
		releaseDate dateVehicleFirstRegistered lastReviewed previousStartDate sdDatePublished dateDeleted dateRead
		dateReceived dateSent productionDate purchaseDate orderDate paymentDueDate scheduledTime bookingTime`) {
		m[p] = sdDate | sdDateTime
	}
	for _, p := range strings.Fields(`doorTime startTime endTime checkinTime checkoutTime arrivalTime departureTime
		availabilityStarts availabilityEnds`) {
		m[p] = sdDate | sdDateTime | sdTime
	}
	m["opens"], m["closes"] = sdTime, sdTime
	return m
}()

// sdKindNames names the kinds a property allows, for messages.
func sdKindNames(kinds uint8) string {
	switch kinds {
	case sdTime:
		return "time"
	case sdDate | sdDateTime:
		return "date or date-time"
	}
	return "date, date-time or time"
}

// sdValidTemporal reports whether s is a value of one of kinds.
func sdValidTemporal(s string, kinds uint8) bool {
	if kinds&(sdDate|sdDateTime) != 0 && sdValidDate(s) {
		return true
	}
	return kinds&sdTime != 0 && sdValidTime(s)
}

// sdValidDate reports whether s is an ISO 8601 calendar date (YYYY,
// YYYY-MM or YYYY-MM-DD) optionally followed by "T" and a time (sdValidTime).
func sdValidDate(s string) bool {
	date, clock, hasTime := strings.Cut(s, "T")
	var y, m, d int
	ok := false
	switch len(date) {
	case 4:
		y, ok = sdDigits(date), true
		m, d = 1, 1
	case 7:
		ok = date[4] == '-'
		y, m, d = sdDigits(date[:4]), sdDigits(date[5:7]), 1
	case 10:
		ok = date[4] == '-' && date[7] == '-'
		y, m, d = sdDigits(date[:4]), sdDigits(date[5:7]), sdDigits(date[8:10])
	}
	if !ok || y < 0 || m < 1 || m > 12 || d < 1 {
		return false
	}
	if t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC); t.Day() != d {
		return false
	}
	if !hasTime {
		return true
	}
	if len(date) != 10 {
		return false
	}
	return sdValidTime(clock)
}

// sdValidTime reports whether s is an ISO 8601 time of day as schema.org's
// Time has it: hh:mm or hh:mm:ss with an optional fraction, and an optional
// zone (Z, ±hh, ±hhmm, ±hh:mm): "18:30:00", "18:30:00+01:00".
func sdValidTime(clock string) bool {
	// Split the zone off.
	zone := ""
	if strings.HasSuffix(clock, "Z") || strings.HasSuffix(clock, "z") {
		clock, zone = clock[:len(clock)-1], "Z"
	} else if i := strings.LastIndexAny(clock, "+-"); i >= 0 {
		clock, zone = clock[:i], clock[i:]
	}
	if zone != "" && zone != "Z" {
		z := strings.ReplaceAll(zone[1:], ":", "")
		if (len(z) != 2 && len(z) != 4) || sdDigits(z) < 0 || sdDigits(z[:2]) > 23 || (len(z) == 4 && sdDigits(z[2:]) > 59) {
			return false
		}
		if len(zone[1:]) == 5 && zone[3] != ':' {
			return false
		}
	}
	if frac := strings.IndexAny(clock, ".,"); frac >= 0 {
		if frac+1 >= len(clock) || sdDigits(clock[frac+1:]) < 0 {
			return false
		}
		clock = clock[:frac]
		if len(clock) != 8 {
			return false
		}
	}
	switch len(clock) {
	case 5:
		return clock[2] == ':' && sdDigits(clock[:2]) >= 0 && sdDigits(clock[:2]) <= 24 && sdDigits(clock[3:]) >= 0 && sdDigits(clock[3:]) <= 59
	case 8:
		return clock[2] == ':' && clock[5] == ':' && sdDigits(clock[:2]) >= 0 && sdDigits(clock[:2]) <= 24 &&
			sdDigits(clock[3:5]) >= 0 && sdDigits(clock[3:5]) <= 59 && sdDigits(clock[6:]) >= 0 && sdDigits(clock[6:]) <= 60
	}
	return false
}

// sdDigits parses an all-digit string, or returns -1.
func sdDigits(s string) int {
	if s == "" {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// sdHas reports whether obj has a non-empty value for prop.
func sdHas(obj map[string]any, prop string) bool {
	return sdNonEmpty(obj[prop])
}

func sdNonEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case string:
		return strings.TrimSpace(t) != ""
	case []any:
		for _, e := range t {
			if sdNonEmpty(e) {
				return true
			}
		}
		return false
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// sdObjects returns the objects of a value that is an object or an array.
func sdObjects(v any) []map[string]any {
	switch t := v.(type) {
	case map[string]any:
		return []map[string]any{t}
	case []any:
		var out []map[string]any
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// sdMissing returns the props obj lacks.
func sdMissing(obj map[string]any, props ...string) []string {
	var miss []string
	for _, pr := range props {
		if !sdHas(obj, pr) {
			miss = append(miss, pr)
		}
	}
	return miss
}

// sdLocalBusiness lists LocalBusiness and common subtypes; types ending in
// Store, Restaurant, Shop or Salon also count (except OnlineStore).
var sdLocalBusiness = sdLowerKeys(
	"LocalBusiness", "Dentist", "Hotel", "Motel", "Hostel", "BedAndBreakfast", "Campground", "Resort", "LodgingBusiness",
	"Bakery", "BarOrPub", "Brewery", "Winery", "Distillery", "FoodEstablishment", "CafeOrCoffeeShop",
	"AutoRepair", "AutoDealer", "AutoRental", "AutoWash", "AutomotiveBusiness", "GasStation", "MotorcycleDealer", "MotorcycleRepair",
	"BeautySalon", "DaySpa", "HealthClub", "ExerciseGym", "HealthAndBeautyBusiness", "TattooParlor",
	"Attorney", "Notary", "LegalService", "Plumber", "Electrician", "Locksmith", "RoofingContractor", "GeneralContractor",
	"HVACBusiness", "HousePainter", "MovingCompany", "HomeAndConstructionBusiness", "RealEstateAgent", "TravelAgency",
	"InsuranceAgency", "AccountingService", "FinancialService", "BankOrCreditUnion", "AutomatedTeller",
	"Pharmacy", "Physician", "MedicalClinic", "MedicalBusiness", "Optician", "VeterinaryCare", "ChildCare",
	"DryCleaningOrLaundry", "EmploymentAgency", "SelfStorage", "ShoppingCenter", "Library", "ProfessionalService",
	"EntertainmentBusiness", "NightClub", "MovieTheater", "Casino", "AmusementPark", "ArtGallery", "BowlingAlley",
	"GolfCourse", "SkiResort", "SportsActivityLocation", "SportsClub", "StadiumOrArena", "TennisComplex",
	"AnimalShelter", "ArchiveOrganization", "InternetCafe", "RadioStation", "RecyclingCenter", "TelevisionStation",
	"TouristInformationCenter", "GovernmentOffice", "PostOffice", "EmergencyService", "Hospital", "FireStation", "PoliceStation",
)

func sdLowerKeys(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}

func sdIsLocalBusiness(t string) bool {
	low := strings.ToLower(t)
	if sdLocalBusiness[low] {
		return true
	}
	if low == "onlinestore" {
		return false
	}
	for _, suf := range [...]string{"store", "restaurant", "shop", "salon"} {
		if strings.HasSuffix(low, suf) {
			return true
		}
	}
	return false
}

// sdIsEvent matches Event and its subtypes other than publication events.
func sdIsEvent(t string) bool {
	switch t {
	case "Event", "Festival", "Hackathon", "CourseInstance":
		return true
	case "BroadcastEvent", "OnDemandEvent", "PublicationEvent", "DeliveryEvent", "InstantaneousEvent":
		return false
	}
	return strings.HasSuffix(t, "Event") && sdKnownTypes()[t]
}

var sdOrganizations = map[string]bool{
	"Organization": true, "Corporation": true, "NGO": true, "NewsMediaOrganization": true, "EducationalOrganization": true,
	"GovernmentOrganization": true, "OnlineStore": true, "OnlineBusiness": true, "Airline": true, "SportsOrganization": true,
	"Consortium": true, "Cooperative": true, "ResearchOrganization": true, "WorkersUnion": true, "PoliticalParty": true,
	"CollegeOrUniversity": true, "MedicalOrganization": true, "PerformingGroup": true, "MusicGroup": true, "SportsTeam": true,
}

func checkStructured(p *Page, r *Reporter) {
	blocks := sdLoad(p)
	for _, b := range blocks {
		el := `<script type="application/ld+json"> #` + strconv.Itoa(b.index)
		if b.err != nil {
			r.Add("structured_data.jsonld_parse_error", "a JSON-LD block is not valid JSON", seo.Evidence{Element: el, Value: sdScriptText(b.node), Detail: b.err.Error()})
			continue
		}
		for _, it := range sdItems(b.value) {
			if it.isTop {
				if !sdSchemaContext(it.obj["@context"]) {
					ctx, _ := json.Marshal(it.obj["@context"])
					r.Add("structured_data.context_missing", "a JSON-LD object has no schema.org @context", seo.Evidence{Element: el, Value: string(ctx)})
				}
			}
			if it.container {
				continue
			}
			types := sdTypes(it.obj)
			if len(types) == 0 {
				if sdSchemaItem(it.obj) {
					r.Add("structured_data.type_missing", "a JSON-LD item has no @type", seo.Evidence{Element: el, Value: sdKeys(it.obj)})
				}
				continue
			}
			sdCheckItem(r, el, it.obj, types)
		}
		// Types and dates are checked everywhere in the block, nested
		// objects included.
		for _, t := range b.unknown {
			r.Add("structured_data.type_unknown", `"`+t+`" is not a schema.org type`, seo.Evidence{Element: el, Value: t})
		}
		sdWalk(b.value, "", func(key string, v any) {
			kinds := sdDateProps[key]
			if kinds == 0 {
				return
			}
			for _, d := range sdScalars(v) {
				if s, ok := d.(string); !ok || !sdValidTemporal(strings.TrimSpace(s), kinds) {
					r.Add("structured_data.invalid_date", key+" is not an ISO 8601 "+sdKindNames(kinds), seo.Evidence{Element: el, Value: sdString(d), Detail: key})
				}
			}
		})
	}

	n := 0
	for _, it := range p.Report.StructuredData {
		if it.Syntax != "json-ld" {
			n++
		}
	}
	if n == 0 {
		for _, e := range p.sdEls {
			if _, ok := Attr(e, "vocab"); ok && e.Namespace == "" {
				n++
			}
		}
	}
	if n > 0 {
		ev := seo.Measure("itemscope/typeof", float64(n), 0)
		ev.Detail = "microdata and RDFa are detected but not validated"
		r.Add("structured_data.microdata_unparsed", "the page uses microdata or RDFa, which is not validated", ev)
	}
}

// sdKeys lists an object's keys for evidence.
func sdKeys(obj map[string]any) string {
	var ks []string
	for k := range obj {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return "{" + strings.Join(ks, ", ") + "}"
}

// sdScalars flattens arrays; objects are skipped (a nested value is not a date).
func sdScalars(v any) []any {
	switch t := v.(type) {
	case []any:
		var out []any
		for _, e := range t {
			out = append(out, sdScalars(e)...)
		}
		return out
	case map[string]any, nil:
		return nil
	}
	return []any{v}
}

func sdString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sdWalk calls fn for every key/value pair in v, depth first.
func sdWalk(v any, key string, fn func(key string, v any)) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys) // deterministic finding order
		for _, k := range keys {
			e := t[k]
			fn(k, e)
			if k != "@type" && k != "@context" {
				sdWalk(e, k, fn)
			}
		}
	case []any:
		for _, e := range t {
			sdWalk(e, key, fn)
		}
	}
}

// sdCheckItem applies the per-type required and recommended properties.
func sdCheckItem(r *Reporter, el string, obj map[string]any, types []string) {
	report := func(id, what string, miss []string) {
		if len(miss) > 0 {
			r.Add(id, what+" lacks "+strings.Join(miss, ", "), seo.Evidence{Element: el, Value: strings.Join(types, ", "), Detail: "missing: " + strings.Join(miss, ", ")})
		}
	}
	for _, t := range types {
		switch {
		case t == "Article" || t == "NewsArticle" || t == "BlogPosting":
			report("structured_data.article.missing_recommended", t, sdMissing(obj, "headline", "image", "datePublished", "author"))
		case t == "Product":
			miss := sdMissing(obj, "name")
			if !sdHas(obj, "offers") && !sdHas(obj, "review") && !sdHas(obj, "aggregateRating") {
				miss = append(miss, "offers/review/aggregateRating")
			}
			report("structured_data.product.missing_required", t, miss)
		case t == "BreadcrumbList":
			report("structured_data.breadcrumb.missing_required", t, sdBreadcrumbMissing(obj))
		case t == "FAQPage":
			report("structured_data.faq.missing_required", t, sdFAQMissing(obj))
		case sdOrganizations[t]:
			miss := sdMissing(obj, "name", "url")
			if logo, ok := obj["logo"]; ok && !sdAbsoluteImage(logo) {
				miss = append(miss, "absolute logo URL")
			}
			report("structured_data.organization.missing_recommended", t, miss)
		case sdIsLocalBusiness(t):
			report("structured_data.local_business.missing_required", t, sdMissing(obj, "name", "address"))
		case sdIsEvent(t):
			report("structured_data.event.missing_required", t, sdMissing(obj, "name", "startDate", "location"))
		case t == "Recipe":
			report("structured_data.recipe.missing_required", t, sdMissing(obj, "name", "image"))
		case t == "JobPosting":
			miss := sdMissing(obj, "title", "description", "datePosted", "hiringOrganization")
			if !sdHas(obj, "jobLocation") && !strings.EqualFold(sdString(obj["jobLocationType"]), "TELECOMMUTE") {
				miss = append(miss, "jobLocation")
			}
			report("structured_data.job_posting.missing_required", t, miss)
		case t == "VideoObject":
			report("structured_data.video.missing_required", t, sdMissing(obj, "name", "thumbnailUrl", "uploadDate"))
		}
	}
}

// sdAbsoluteImage reports whether an image value (URL string, ImageObject
// with url or contentUrl, or an array of these) holds an absolute http(s) URL.
func sdAbsoluteImage(v any) bool {
	switch t := v.(type) {
	case string:
		return cnAbsHTTP(t) != nil
	case map[string]any:
		return sdAbsoluteImage(t["url"]) || sdAbsoluteImage(t["contentUrl"])
	case []any:
		for _, e := range t {
			if sdAbsoluteImage(e) {
				return true
			}
		}
	}
	return false
}

func sdBreadcrumbMissing(obj map[string]any) []string {
	if !sdHas(obj, "itemListElement") {
		return []string{"itemListElement"}
	}
	items := sdObjects(obj["itemListElement"])
	var miss []string
	for i, li := range items {
		pos := "ListItem " + strconv.Itoa(i+1)
		if !sdHas(li, "position") {
			miss = append(miss, pos+" position")
		}
		name := sdHas(li, "name")
		if !name {
			for _, item := range sdObjects(li["item"]) {
				name = name || sdHas(item, "name")
			}
		}
		if !name {
			miss = append(miss, pos+" name")
		}
		if i < len(items)-1 && !sdHas(li, "item") {
			miss = append(miss, pos+" item")
		}
	}
	return miss
}

func sdFAQMissing(obj map[string]any) []string {
	if !sdHas(obj, "mainEntity") {
		return []string{"mainEntity"}
	}
	var miss []string
	for i, q := range sdObjects(obj["mainEntity"]) {
		pos := "Question " + strconv.Itoa(i+1)
		if !sdHas(q, "name") {
			miss = append(miss, pos+" name")
		}
		text := false
		for _, a := range sdObjects(q["acceptedAnswer"]) {
			text = text || sdHas(a, "text")
		}
		if !text {
			miss = append(miss, pos+" acceptedAnswer.text")
		}
	}
	return miss
}
