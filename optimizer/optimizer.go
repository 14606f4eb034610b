package optimizer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/seokit/seokit/seo"
)

// Limits on a request. Larger input is refused with an *seo.InputError.
const (
	// MaxContentBytes is the largest content accepted: 10 MiB.
	MaxContentBytes = 10 << 20
	// MaxKeywords is the largest number of keyphrases in one request.
	MaxKeywords = 1000
	// MaxKeywordBytes is the longest keyphrase accepted, in bytes.
	MaxKeywordBytes = 200
	// MaxFieldBytes is the longest title, description or slug accepted.
	MaxFieldBytes = 2048
)

// Formats accepted in Request.Format.
const (
	FormatAuto     = ""
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
)

// Request is the input of Optimize.
type Request struct {
	// Content is the text to optimise: plain text, Markdown or HTML.
	Content string `json:"content"`
	// Format is "text", "markdown" or "html"; empty means detect it.
	Format string `json:"format,omitempty"`
	// Title is the SEO title, if any. For HTML without it, <title> is used.
	Title string `json:"title,omitempty"`
	// Description is the meta description, if any. For HTML without it,
	// <meta name="description"> is used.
	Description string `json:"description,omitempty"`
	// Slug is the URL slug (or a whole URL), if any.
	Slug string `json:"slug,omitempty"`
	// Keywords are the keyphrases, primary first. A keyphrase in double
	// quotes is matched exactly; otherwise its content words are matched in
	// any order and in any word form within one sentence.
	Keywords []string `json:"keywords"`
	// Locale is the content's locale, xx-XX (xx_XX is accepted).
	Locale string `json:"locale"`
	// Memory, when set, is the budget Optimize reserves
	// EstimateMemory(len(Content)) from before it builds its working set,
	// and gives back when it returns.
	Memory seo.MemoryBudget `json:"-"`
}

// Memory model of Optimize: the heap it holds at its peak, above what was
// in use before (the content itself and the shared word lists and
// part-of-speech model, loaded once per process, not counted), is at most
// memoryPerByte times the content's size plus memoryBase. TestOptimizeMemory
// measures it for 10 MiB texts of every shape it knows (English, German,
// French, Russian, Japanese, one huge word, one huge sentence, one short
// paragraph per line, HTML full of links and images, Markdown full of
// headings, 1.7 million distinct random word forms, one German word of 10
// MiB), each in a fresh process with the default GOGC, and fails
// when a shape exceeds EstimateMemory; BenchmarkOptimizeLarge prints the
// same ratios. The worst shapes are those of many tiny blocks (a paragraph
// or heading of two words per line): about 100 bytes of blocks,
// sentences and tokens for 12 bytes of text, doubled by the garbage
// collector's headroom. Prose holds 4 to 8 times its size.
const (
	memoryPerByte = 24
	memoryBase    = 4 << 20
)

// EstimateMemory returns the bytes of heap that Optimize holds at most
// for content of contentBytes bytes (see the memory model above): what
// a server's admission control reserves before optimising.
func EstimateMemory(contentBytes int) int64 {
	return memoryBase + memoryPerByte*int64(max(contentBytes, 0))
}

// Span is a range of byte offsets [Start, End) in Request.Content.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Finding is a seo.Finding with the places in the content it points at.
// Evidence.Offset holds the first span's start.
type Finding struct {
	seo.Finding
	// Keyphrase is the keyphrase the finding is about, if any.
	Keyphrase string `json:"keyphrase,omitempty"`
	// Spans locate the text concerned (at most MaxSpans).
	Spans []Span `json:"spans,omitempty"`
	// Truncated has an entry "spans" when more than MaxSpans places were
	// found, with their total.
	Truncated seo.Truncated `json:"truncated,omitempty"`
}

// Caps on the lists of a Report; a list cut at its cap is noted in the
// Truncated field next to it, with its total.
const (
	// MaxSpans is the largest number of spans kept on one finding or
	// keyphrase.
	MaxSpans = 50
	// MaxFindings is the largest number of findings kept in a report.
	MaxFindings = 500
)

// Assessment is one scored check, on Yoast's 0-9 scale (9 good, 5-7 ok,
// 4 or less bad). Scores below 0 count as 0.
type Assessment struct {
	// ID names the check. A check with several outcomes uses the ID of
	// one of them (keyphrase.not_in_title also covers
	// keyphrase.title_not_at_start); keyphrase.density covers
	// keyphrase.not_found, density_low, density_high and stuffing. The
	// findings explain any score below 9.
	ID string `json:"id"`
	// Area is "seo" or "readability".
	Area string `json:"area"`
	// Keyphrase is set on keyphrase assessments.
	Keyphrase string `json:"keyphrase,omitempty"`
	Score     int    `json:"score"`
}

// Report is the result of Optimize.
type Report struct {
	// Locale is the request's locale as xx-XX.
	Locale string `json:"locale"`
	// Language is the locale's language.
	Language string `json:"language"`
	// Supported is true when Language has full support (see Languages).
	Supported bool `json:"supported"`
	// Skipped names the language-specific analyses not run for an
	// unsupported language.
	Skipped []string `json:"skipped,omitempty"`
	// Detected is the language the text appears to be in.
	Detected Detection `json:"detected"`
	// Format is the input format used: "text", "markdown" or "html".
	Format string `json:"format"`
	// SEOScore and ReadabilityScore are 0-100; see the package
	// documentation for the rule. They are nil when not computed, and
	// SEOReason or ReadabilityReason then says why. SEORating and
	// ReadabilityRating are "good", "ok" or "bad" ("" and JSON null when
	// the score is nil); neither is "good" while an error finding of its
	// area stands.
	SEOScore          *int   `json:"seoScore"`
	SEORating         Rating `json:"seoRating"`
	SEOReason         string `json:"seoReason,omitempty"`
	ReadabilityScore  *int   `json:"readabilityScore"`
	ReadabilityRating Rating `json:"readabilityRating"`
	// ReadabilityReason is ReasonUnsupportedLanguage (no reading-ease
	// formula, passive voice, transition or complex-word check: the
	// structural checks that did run keep their assessments and findings
	// but make no score), ReasonTooShort or ReasonNoChecks when
	// ReadabilityScore is nil, else empty.
	ReadabilityReason string `json:"readabilityReason,omitempty"`
	// SEOChecks and ReadabilityChecks count the assessments behind each
	// score.
	SEOChecks         int `json:"seoChecks"`
	ReadabilityChecks int `json:"readabilityChecks"`
	// SEOCappedBy and ReadabilityCappedBy name the error findings that
	// lowered the score to its cap (70, or 40 for content.empty), if any.
	SEOCappedBy         []string `json:"seoCappedBy,omitempty"`
	ReadabilityCappedBy []string `json:"readabilityCappedBy,omitempty"`
	// Stats are the raw counts.
	Stats Stats `json:"stats"`
	// Readability holds the reading-ease formula and grade levels.
	Readability Readability `json:"readability"`
	// Keyphrases has one entry per requested keyphrase, in order.
	Keyphrases []Keyphrase `json:"keyphrases"`
	// ProminentWords are the most frequent content words (by stem).
	ProminentWords []WordCount `json:"prominentWords,omitempty"`
	// Assessments are the scored checks behind the two scores.
	Assessments []Assessment `json:"assessments"`
	// Findings are the problems found, most severe first (at most
	// MaxFindings).
	Findings []Finding `json:"findings"`
	// Suggestions holds rewrites built from the text.
	Suggestions Suggestions `json:"suggestions"`
	// Truncated has an entry "findings" when more than MaxFindings were
	// found (the most severe are kept), with their total. Lists within a
	// finding or a keyphrase note their own truncation.
	Truncated seo.Truncated `json:"truncated,omitempty"`
}

// Stats are raw counts over the body text (headings excluded unless named).
type Stats struct {
	Characters           int     `json:"characters"`
	Letters              int     `json:"letters"`
	Words                int     `json:"words"`
	Sentences            int     `json:"sentences"`
	Syllables            int     `json:"syllables"`
	Paragraphs           int     `json:"paragraphs"`
	Headings             int     `json:"headings"`
	Subheadings          int     `json:"subheadings"`
	ListItems            int     `json:"listItems"`
	TableCells           int     `json:"tableCells"`
	Quotes               int     `json:"quotes"`
	Images               int     `json:"images"`
	Links                int     `json:"links"`
	AvgSentenceWords     float64 `json:"avgSentenceWords"`
	AvgWordSyllables     float64 `json:"avgWordSyllables"`
	LongSentences        int     `json:"longSentences"`
	LongSentencePercent  float64 `json:"longSentencePercent"`
	MaxSentenceWords     int     `json:"maxSentenceWords"`
	MaxParagraphWords    int     `json:"maxParagraphWords"`
	MaxSectionWords      int     `json:"maxSectionWords"`
	PassiveSentences     int     `json:"passiveSentences"`
	PassivePercent       float64 `json:"passivePercent"`
	TransitionSentences  int     `json:"transitionSentences"`
	TransitionPercent    float64 `json:"transitionPercent"`
	ComplexWords         int     `json:"complexWords"`
	ComplexWordPercent   float64 `json:"complexWordPercent"`
	MaxConsecutiveOpener int     `json:"maxConsecutiveOpenings"`
	ReadingTimeMinutes   float64 `json:"readingTimeMinutes"`
	// PassiveMethod is "pos" (English tagger), "rules" or "" (not run).
	PassiveMethod string `json:"passiveMethod,omitempty"`
	// WordsReason is ReasonNoWordBoundaries for a language written without
	// spaces between words: Words, Syllables and every statistic, finding
	// and assessment counted in words (keyphrase density, sentence,
	// paragraph, section and text length, reading time) are then not
	// computed (0), and AvgSentenceCharacters measures sentence length.
	WordsReason string `json:"wordsReason,omitempty"`
	// AvgSentenceCharacters is the mean number of characters per sentence.
	AvgSentenceCharacters float64 `json:"avgSentenceCharacters"`
}

// Readability is the language's reading-ease formula and, for English,
// the grade levels.
type Readability struct {
	Formula string `json:"formula,omitempty"`
	// Score is the formula's value clamped to 0-100, or nil when it was
	// not computed; Reason then says why.
	Score *float64 `json:"score"`
	// Reason is ReasonUnsupportedLanguage, ReasonTooShort or ReasonNoProse
	// when Score is nil, else empty.
	Reason string `json:"reason,omitempty"`
	// Band is "easy", "fairly difficult" or "difficult" by the language's bands.
	Band          string   `json:"band,omitempty"`
	FleschKincaid *float64 `json:"fleschKincaidGrade,omitempty"`
	GunningFog    *float64 `json:"gunningFog,omitempty"`
	SMOG          *float64 `json:"smog,omitempty"`
	ColemanLiau   *float64 `json:"colemanLiau,omitempty"`
	ARI           *float64 `json:"automatedReadabilityIndex,omitempty"`
}

// Reasons a metric was not computed (Readability.Reason).
const (
	// ReasonUnsupportedLanguage: the language has no reading-ease formula.
	ReasonUnsupportedLanguage = "unsupported_language"
	// ReasonTooShort: the text has under 50 letters (content.empty).
	ReasonTooShort = "too_short"
	// ReasonNoProse: the text has no paragraph, list item or quote.
	ReasonNoProse = "no_prose"
	// ReasonNoChecks: no assessment of the score's area could run.
	ReasonNoChecks = "no_checks"
	// ReasonNoWordBoundaries: the language is written without spaces
	// between words (Japanese, Chinese, Thai...), so counts of words
	// (Stats.WordsReason) are not comparable with other languages.
	ReasonNoWordBoundaries = "no_word_boundaries"
)

// Rating is a score's rating: "good", "ok", "bad", or "" when the score
// was not computed, which JSON encodes as null.
type Rating string

// MarshalJSON encodes the empty rating as null.
func (r Rating) MarshalJSON() ([]byte, error) {
	if r == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(r))
}

// Keyphrase is the analysis of one keyphrase.
type Keyphrase struct {
	Phrase string `json:"phrase"`
	// Exact is true for a quoted keyphrase.
	Exact bool `json:"exact"`
	// Words are the content words matched (function words removed).
	Words []string `json:"words"`
	// Occurrences counts matches in the body; Forms lists the word forms seen.
	Occurrences int      `json:"occurrences"`
	Forms       []string `json:"forms,omitempty"`
	// Density is occurrences per 100 words, the density every message
	// quotes; AdjustedDensity multiplies it by the length factor 0.7 + n/3
	// (n content words), the value the recommended range is derived from.
	Density         float64 `json:"density"`
	AdjustedDensity float64 `json:"adjustedDensity"`
	// RecommendedMin to RecommendedMax uses are rated good (1 <= min <=
	// max); 0 for both when the text has no words.
	RecommendedMin int `json:"recommendedMin"`
	RecommendedMax int `json:"recommendedMax"`
	// DensityRating rates Occurrences against that range: DensityGood,
	// DensityNotFound, DensityLow, DensityHigh or DensityStuffing; empty
	// when the text has no words. A finding keyphrase.not_found,
	// density_low, density_high or stuffing stands exactly when it is not
	// good.
	DensityRating  string `json:"densityRating,omitempty"`
	InTitle        *bool  `json:"inTitle,omitempty"`
	TitleAtStart   *bool  `json:"titleAtStart,omitempty"`
	InIntroduction bool   `json:"inIntroduction"`
	InDescription  *int   `json:"inDescription,omitempty"` // sentences of the description that match
	InSlug         *bool  `json:"inSlug,omitempty"`
	// SubheadingsMatched of Subheadings (H2/H3) reflect the keyphrase.
	SubheadingsMatched int `json:"subheadingsMatched"`
	Subheadings        int `json:"subheadings"`
	// AltMatched of Images have it in their alt text.
	AltMatched int `json:"altMatched"`
	Images     int `json:"images"`
	// LongestGap is the longest run of sentences without the keyphrase,
	// and GapRatio that run divided by the number of sentences.
	LongestGap int     `json:"longestGap"`
	GapRatio   float64 `json:"gapRatio"`
	// MaxPerSentence is the most matches in one sentence; MaxPer100Words
	// the most in any window of 100 words.
	MaxPerSentence int `json:"maxPerSentence"`
	MaxPer100Words int `json:"maxPer100Words"`
	// StuffingSignals explain any sign of keyword stuffing.
	StuffingSignals []string `json:"stuffingSignals,omitempty"`
	// CompetingLinks counts links whose anchor is the keyphrase.
	CompetingLinks int `json:"competingLinks"`
	// CompetesWith lists other keyphrases targeting the same words.
	CompetesWith []string `json:"competesWith,omitempty"`
	// Spans locate the matched words (at most MaxSpans).
	Spans []Span `json:"spans,omitempty"`
	// Truncated has an entry "spans" when more than MaxSpans words
	// matched, with their total.
	Truncated seo.Truncated `json:"truncated,omitempty"`
}

// WordCount is a word with its number of uses.
type WordCount struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

// Suggestions are rewrites built from the text for the primary keyphrase.
type Suggestions struct {
	// Title contains the keyphrase and fits 60 characters.
	Title string `json:"title,omitempty"`
	// Description contains the keyphrase and fits 155 characters.
	Description string `json:"description,omitempty"`
	// Slug is built from the keyphrase's words.
	Slug string `json:"slug,omitempty"`
	// Tips are short actions, one per finding, most severe first.
	Tips []string `json:"tips,omitempty"`
}

// Optimize analyses req.Content for req.Keywords in req.Locale. Invalid
// input gives an *seo.InputError naming the field ("content", "format",
// "locale", "keywords", "keywords[3]", "title", "description", "slug").
// A locale whose language lacks full support still gets every
// language-independent analysis; Report.Skipped says what was left out.
// With req.Memory set, a refused reservation is returned wrapped (it wraps
// seo.ErrUnavailable or ctx's error). Once ctx is done, Optimize stops
// within a few thousand steps of work and returns ctx's error, wrapped.
func Optimize(ctx context.Context, req Request) (*Report, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("optimizer: %w", err)
	}
	loc, err := seo.ParseLocale(req.Locale)
	if err != nil {
		return nil, err
	}
	if err := validate(&req); err != nil {
		return nil, err
	}
	if req.Memory != nil {
		release, err := req.Memory.Reserve(ctx, EstimateMemory(len(req.Content)))
		if err != nil {
			return nil, fmt.Errorf("optimizer: reserving memory: %w", err)
		}
		defer release()
	}
	return run(ctx, req, loc)
}

func validate(req *Request) error {
	if len(req.Content) > MaxContentBytes {
		return &seo.InputError{Field: "content", Reason: fmt.Sprintf("must be at most %d bytes, got %d", MaxContentBytes, len(req.Content)), Err: seo.ErrTooLarge}
	}
	req.Content = spaceInvalid(req.Content)
	switch strings.ToLower(strings.TrimSpace(req.Format)) {
	case "", "auto":
		req.Format = ""
	case "text", "plain", "txt":
		req.Format = FormatText
	case "markdown", "md":
		req.Format = FormatMarkdown
	case "html":
		req.Format = FormatHTML
	default:
		return &seo.InputError{Field: "format", Value: req.Format, Reason: `must be "text", "markdown" or "html"`}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"title", &req.Title}, {"description", &req.Description}, {"slug", &req.Slug}} {
		if len(*f.v) > MaxFieldBytes {
			return &seo.InputError{Field: f.name, Reason: fmt.Sprintf("must be at most %d bytes", MaxFieldBytes), Err: seo.ErrTooLarge}
		}
		*f.v = strings.ToValidUTF8(*f.v, "\uFFFD")
	}
	if len(req.Keywords) > MaxKeywords {
		return &seo.InputError{Field: "keywords", Reason: fmt.Sprintf("at most %d keyphrases are accepted, got %d", MaxKeywords, len(req.Keywords)), Err: seo.ErrTooLarge}
	}
	for i, k := range req.Keywords {
		field := fmt.Sprintf("keywords[%d]", i)
		if !utf8.ValidString(k) {
			return &seo.InputError{Field: field, Value: strings.ToValidUTF8(k, "\uFFFD"), Reason: "must be valid UTF-8"}
		}
		if len(k) > MaxKeywordBytes {
			return &seo.InputError{Field: field, Value: k, Reason: fmt.Sprintf("must be at most %d bytes", MaxKeywordBytes)}
		}
		t := strings.Trim(strings.TrimSpace(k), "\"“”„«»")
		if !hasWordChar(t) {
			return &seo.InputError{Field: field, Value: k, Reason: "must contain at least one word"}
		}
	}
	return nil
}

// spaceInvalid replaces every byte of invalid UTF-8 by a space, so that
// offsets into the result are offsets into the original.
func spaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			b[i] = ' '
		}
		i += n
	}
	return string(b)
}

func rating(score int) Rating {
	switch {
	case score > 70:
		return "good"
	case score > 40:
		return "ok"
	}
	return "bad"
}
