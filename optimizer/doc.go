// Package optimizer analyses a text for one or more keyphrases in a locale,
// the way a content writer used to Yoast SEO expects, in eight languages.
//
// # Use
//
//	r, err := optimizer.Optimize(ctx, optimizer.Request{
//		Content:  text,              // plain text, Markdown or HTML
//		Keywords: []string{"brew coffee", `"french press"`},
//		Locale:   "en-US",
//		Title:    "How to brew coffee at home",
//	})
//
// Invalid input is an *seo.InputError (errors.Is(err, seo.ErrInvalidInput))
// naming the field as the API spells it: "content", "format", "locale",
// "keywords", "keywords[3]", "title", "description" or "slug". Limits:
// content at most MaxContentBytes (10 MiB), at most MaxKeywords (1,000)
// keyphrases of at most MaxKeywordBytes each, title, description and slug at
// most MaxFieldBytes. Each byte of invalid UTF-8 in the content is read as a
// space, so offsets still point into the content as given.
//
// # Input
//
// The format is detected (HTML tags, Markdown markers, else plain text) or
// given. The text is split into blocks: paragraphs, headings, list items,
// table cells, quotes and captions. Only paragraphs are prose: sentence
// length, passive voice, transition words and sentence openings are checked
// on paragraphs only, so lists, tables, headings and quotes are never taken
// for sentences. Code blocks, scripts and styles are ignored. In HTML,
// <title> and <meta name="description"> stand in for a missing title or
// description; image alt texts and link anchors are collected in HTML and
// Markdown.
//
// # Languages
//
// The locale's language chooses the rules. English (en), German (de),
// Spanish (es), French (fr), Italian (it), Dutch (nl), Portuguese (pt) and
// Russian (ru) have full support: sentence splitting that knows the
// language's abbreviations, Unicode word boundaries (UAX #29), Snowball
// stemming, stopwords, syllable counting, the language's reading-ease
// formula and passive voice and transition-word checks. Any other valid
// locale gets the language-independent checks (lengths, structure, exact
// word-form keyphrase matching) and Report.Skipped lists what was skipped;
// it is never an error. The word lists are embedded data files written for
// this project (data/SOURCES.md).
//
// Reading ease, W words, S sentences, Y syllables:
//
//	en  Flesch            206.835 - 1.015 W/S - 84.6 Y/W
//	de  Amstad            180 - W/S - 58.5 Y/W
//	es  Fernández Huerta  206.84 - 1.02 W/S - 60 Y/W
//	fr  Kandel-Moles      207 - 1.015 W/S - 73.6 Y/W
//	it  Flesch-Vacca      217 - 1.3 W/S - 60 Y/W
//	nl  Douma             206.84 - 0.93 W/S - 77 Y/W
//	pt  Flesch (pt)       248.835 - 1.015 W/S - 84.6 Y/W
//	ru  Oborneva          206.835 - 1.3 W/S - 60.1 Y/W
//
// The score is clamped to 0-100; 60 or more is easy (ru 50), 50 or more
// fairly difficult (ru 40). English also gets the Flesch-Kincaid grade,
// Gunning Fog, SMOG, Coleman-Liau and ARI.
//
// Passive voice in English uses the part-of-speech tagger of
// github.com/jdkato/prose/v2: its model is loaded once per process, lazily
// (or by WarmUp), and only short windows around a form of "be" or "get"
// are tagged. The other languages use auxiliary + participle rules (de, nl,
// fr, es, it, pt) or short-participle endings (ru).
//
// The detected language (stopword statistics over the first 3,000 words)
// is reported in Report.Detected; a confident detection that differs from
// the locale is the finding language.mismatch.
//
// # Keyphrases
//
// A keyphrase matches a sentence when all its content words (function words
// removed) occur in that sentence, in any order and in any word form (same
// stem; a word over 64 bytes is its own stem), with case, apostrophes and
// diacritics folded. A keyphrase in double
// quotes matches only as the exact phrase, in order.
//
// Density is uses per 100 words, and it is the density every message
// quotes. The density rule is computed once, in numbers of uses, and
// Keyphrase.RecommendedMin to RecommendedMax, Keyphrase.DensityRating, the
// findings and the assessment all read it, so they cannot disagree:
//
//	under 51 words    1 use is good, 2 too many, 3 or more stuffing
//	51 to 99 words    1 or 2 uses good, 3 too many, 4 or more stuffing
//	100 words or more the uses whose adjusted density is 0.5% to 3.5% are good
//	                  (3% for a quoted keyphrase or a language without word
//	                  forms), more up to 4% too many, above 4% stuffing
//
// The adjusted density (Keyphrase.AdjustedDensity) multiplies the density
// by 0.7 + n/3 for n content words, so longer keyphrases need fewer uses.
// The range always has at least 1 use, and 1 use is never too many.
//
// Each keyphrase is checked in the title, the first paragraph, the
// H2/H3 subheadings, the meta description, image alt texts and the slug,
// for its distribution (longest run of sentences without it), stuffing
// signals, links that compete for it and other keyphrases with the same
// words.
//
// # Scores
//
// Every check is an Assessment scored 0-9 as in Yoast (9 good, 5-7 ok, 4 or
// less bad; negative scores count as 0). The SEO score is
// round(100 × Σ scores / (9 × n)) over the SEO assessments, where the
// assessments of each keyphrase are averaged over the keyphrases, so all
// keyphrases together weigh as much as one. The readability score applies
// the same formula to the readability assessments. Ratings: above 70 is
// "good", above 40 "ok", otherwise "bad".
//
// A score is never rated "good" while an error finding of its area stands:
// every error caps the SEO score at 70 ("ok" at best), and content.empty,
// which leaves too little text to rate, caps the SEO score at 40 ("bad").
// Report.SEOCappedBy and ReadabilityCappedBy name the errors that lowered
// a score. A metric that was not computed is null, never 0, with the
// reason: Readability.Score is nil with Reason "unsupported_language" (no
// formula for the language), "too_short" (under 50 letters) or "no_prose"
// (no paragraph, list item or quote). The readability score and rating are
// nil (JSON null) with ReadabilityReason "unsupported_language" (the
// structural checks that ran keep their findings, but without the formula,
// passive voice, transition and complex-word checks they make no score),
// "too_short" or "no_checks"; SEOChecks and ReadabilityChecks count the
// assessments behind each score.
//
// A language written without spaces between words (Japanese, Chinese,
// Thai, Lao, Khmer, Burmese, Tibetan) is not counted in words: Unicode
// segments Han text one character per word, so word counts are not
// comparable. Stats.WordsReason is then "no_word_boundaries", keyphrase
// density, sentence, paragraph, section and text length in words are not
// computed, a keyphrase matches only as written, and the facts counted in
// characters still run (occurrences, title, introduction, slug,
// Stats.AvgSentenceCharacters).
//
// # Findings
//
// Findings carry a stable ID, the severity of Catalog, a message, evidence
// and Spans: byte offsets [Start, End) into Request.Content of the text they
// point at (Evidence.Offset is the first span's start). A finding or a
// keyphrase keeps at most MaxSpans spans and a report at most MaxFindings
// findings (the most severe); a list cut at its cap has an entry in the
// Truncated field next to it ("spans", "findings") with its total and the
// number omitted. IDs:
//
//	content.empty                   error    fewer than 50 letters of text
//	content.too_short               warning  fewer than 300 words
//	language.mismatch               warning  text detected in another language
//	language.unsupported            notice   no full support for the locale's language
//	meta.title_too_long             warning  title over 60 characters
//	meta.description_too_short      notice   description of 120 characters or fewer
//	meta.description_too_long       warning  description over 155 characters
//	keyphrase.missing               error    no keyphrase given
//	keyphrase.function_words_only   warning  keyphrase of function words only
//	keyphrase.too_long              warning  more than 4 content words
//	keyphrase.not_found             error    keyphrase not in the body
//	keyphrase.density_low           warning  fewer uses than the recommended range
//	keyphrase.density_high          warning  more uses than the range, adjusted density up to 4%
//	keyphrase.stuffing              error    more uses still (see Keyphrases)
//	keyphrase.repeated_in_sentence  notice   3 or more uses in one sentence
//	keyphrase.not_in_title          warning  title lacks the keyphrase
//	keyphrase.title_not_at_start    notice   keyphrase in the title but not at its start
//	keyphrase.not_in_introduction   warning  first paragraph lacks it
//	keyphrase.introduction_split    notice   first paragraph has its words only across sentences
//	keyphrase.not_in_description    warning  meta description lacks it
//	keyphrase.description_overused  notice   more than 2 description sentences use it
//	keyphrase.not_in_subheadings    notice   under 30% of H2/H3 reflect it
//	keyphrase.subheadings_overused  warning  over 75% of H2/H3 reflect it
//	keyphrase.not_in_alt            notice   no alt text has it (under 30% of 5+ images)
//	keyphrase.alt_overused          notice   over 75% of 5+ alt texts have it
//	keyphrase.not_in_slug           notice   slug lacks it
//	keyphrase.poor_distribution     warning  30% or more of 15+ sentences in a row lack it
//	keyphrase.competing_links       warning  a link's anchor is the keyphrase
//	keyphrase.competing             notice   two keyphrases with the same words
//	readability.sentence_too_long   warning  over 25% of sentences too long (20 words; es, it, pt 25; ru 15)
//	readability.paragraph_too_long  warning  a paragraph over 150 words
//	readability.section_too_long    warning  a section over 300 words
//	readability.no_subheadings      warning  over 300 words and no subheading
//	readability.passive_voice       warning  over 10% passive sentences
//	readability.few_transitions     warning  under 30% sentences with transitions (over 200 words)
//	readability.consecutive_openings warning 3 or more sentences in a row open alike
//	readability.complex_words       notice   over 15% complex words
//	readability.hard_to_read        warning  reading ease under the easy band
//
// # Suggestions
//
// Report.Suggestions has a title (at most 60 characters) and a meta
// description (at most 155) built from the text that contain the primary
// keyphrase, a slug built from it, and one tip per finding ID. The slug
// writes letters as the locale's language does without marks: German ä ö ü
// ß as ae oe ue ss (gruener-tee), Danish and Norwegian æ ø å as ae oe aa,
// other Latin-script languages fold diacritics (creme-brulee); Cyrillic
// stays Cyrillic (ё as е) and runs of ideographs or kana are not split. A
// slug spelled either way (gruener-tee or gruner-tee) reflects the
// keyphrase.
//
// # Memory
//
// Optimize holds at most EstimateMemory(len(content)) bytes of heap: about
// 4 to 8 times the content's size for prose, up to 24 times for text made
// of tiny blocks. It keeps 12 bytes per word, 20 per sentence and 48 per
// block, plus the language data of at most 65,536 distinct word forms;
// each word of a rarer form keeps its own (20 bytes), so no form is
// analysed twice for one word. English passive detection tags at most
// 2,000 short windows with the part-of-speech model and checks the rest by
// rule (Stats.PassiveMethod). Suggestions read at most the first 4 KB of a
// sentence. Request.Memory lets a server reserve the estimate from a shared
// budget before the work starts.
//
// # Time
//
// Optimize takes time linear in the content's size: a few seconds of one
// core for 10 MiB of any shape TestOptimizeMemory knows (prose, one huge
// word, random word forms ...). Its long loops look at the context every
// 1,024 steps and between steps, and return the context's error once it
// is done, so a server's request deadline stops the work.
package optimizer
