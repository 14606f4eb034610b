package optimizer

import "github.com/seokit/seokit/seo"

// ScopeContent is the scope of the optimizer's checks: the submitted text
// and its title, description and slug.
const ScopeContent seo.Scope = "content"

// Check IDs of the optimizer. They are stable: an ID never changes meaning.
const (
	IDContentEmpty    = "content.empty"
	IDContentTooShort = "content.too_short"

	IDLanguageMismatch    = "language.mismatch"
	IDLanguageUnsupported = "language.unsupported"

	IDTitleTooLong           = "meta.title_too_long"
	IDDescriptionTooShort    = "meta.description_too_short"
	IDDescriptionTooLong     = "meta.description_too_long"
	IDKeyphraseMissing       = "keyphrase.missing"
	IDKeyphraseFunctionWords = "keyphrase.function_words_only"
	IDKeyphraseTooLong       = "keyphrase.too_long"
	IDKeyphraseNotFound      = "keyphrase.not_found"
	IDDensityLow             = "keyphrase.density_low"
	IDDensityHigh            = "keyphrase.density_high"
	IDStuffing               = "keyphrase.stuffing"
	IDRepeatedInSentence     = "keyphrase.repeated_in_sentence"
	IDNotInTitle             = "keyphrase.not_in_title"
	IDTitleNotAtStart        = "keyphrase.title_not_at_start"
	IDNotInIntroduction      = "keyphrase.not_in_introduction"
	IDIntroductionSplit      = "keyphrase.introduction_split"
	IDNotInDescription       = "keyphrase.not_in_description"
	IDDescriptionOverused    = "keyphrase.description_overused"
	IDNotInSubheadings       = "keyphrase.not_in_subheadings"
	IDSubheadingsOverused    = "keyphrase.subheadings_overused"
	IDNotInAlt               = "keyphrase.not_in_alt"
	IDAltOverused            = "keyphrase.alt_overused"
	IDNotInSlug              = "keyphrase.not_in_slug"
	IDPoorDistribution       = "keyphrase.poor_distribution"
	IDCompetingLinks         = "keyphrase.competing_links"
	IDCompeting              = "keyphrase.competing"

	IDSentenceTooLong     = "readability.sentence_too_long"
	IDParagraphTooLong    = "readability.paragraph_too_long"
	IDSectionTooLong      = "readability.section_too_long"
	IDNoSubheadings       = "readability.no_subheadings"
	IDPassiveVoice        = "readability.passive_voice"
	IDFewTransitions      = "readability.few_transitions"
	IDConsecutiveOpenings = "readability.consecutive_openings"
	IDComplexWords        = "readability.complex_words"
	IDHardToRead          = "readability.hard_to_read"
)

var catalog = []seo.CheckInfo{
	check(IDContentEmpty, seo.Error, "the text has fewer than 50 characters of words",
		"Yoast SEO text presence (under 50 characters); seokit's own error: no other check can judge so little text", ""),
	check(IDContentTooShort, seo.Warning, "the body has fewer than 300 words",
		"Yoast SEO text length assessment (300 words, https://github.com/Yoast/wordpress-seo/tree/trunk/packages/yoastseo)", ""),
	check(IDLanguageMismatch, seo.Warning, "the text appears to be in another language than the locale's",
		"seokit's own rule: the language-specific checks need the text to be in the locale's language", ""),
	check(IDLanguageUnsupported, seo.Notice, "the locale's language has no full support; language-specific checks were skipped",
		"seokit's own notice: says which checks were skipped instead of scoring them", ""),
	check(IDTitleTooLong, seo.Warning, "the title is longer than 60 characters",
		"Google Search Central, Title links (https://developers.google.com/search/docs/appearance/title-link); Yoast SEO SEO title width", "Yoast measures the title's width in pixels (600 px); the optimizer counts 60 characters, as Screaming Frog and SEOnaut do."),
	check(IDDescriptionTooShort, seo.Notice, "the meta description has 120 characters or fewer",
		"Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet); Yoast SEO meta description length (121 to 156 characters)", ""),
	check(IDDescriptionTooLong, seo.Warning, "the meta description is longer than 155 characters",
		"Google Search Central, Meta descriptions and snippets (https://developers.google.com/search/docs/appearance/snippet); Yoast SEO meta description length (121 to 156 characters)", "Yoast flags 157 characters or more; the optimizer flags over 155, as Screaming Frog does."),
	check(IDKeyphraseMissing, seo.Error, "no keyphrase was given",
		"Yoast SEO (a focus keyphrase is needed for the keyphrase assessments)", ""),
	check(IDKeyphraseFunctionWords, seo.Warning, "the keyphrase has only function words",
		"Yoast SEO function words in keyphrase", ""),
	check(IDKeyphraseTooLong, seo.Warning, "the keyphrase has more than 4 content words",
		"Yoast SEO keyphrase length (1 to 4 content words)", ""),
	check(IDKeyphraseNotFound, seo.Error, "the keyphrase does not occur in the body",
		"Yoast SEO keyphrase density (https://github.com/Yoast/wordpress-seo/tree/trunk/packages/yoastseo)", ""),
	check(IDDensityLow, seo.Warning, "fewer uses than the recommended range (adjusted density under 0.5%)",
		"Yoast SEO keyphrase density, counted in uses (https://github.com/Yoast/wordpress-seo/tree/trunk/packages/yoastseo)", ""),
	check(IDDensityHigh, seo.Warning, "more uses than the recommended range (adjusted density over 3.5%, 3% without word forms), up to 4%",
		"Yoast SEO keyphrase density, counted in uses (https://github.com/Yoast/wordpress-seo/tree/trunk/packages/yoastseo)", "The upper bound is 3.5% adjusted density where seokit matches word forms, as in Yoast, but 3% (not 3.5%) for quoted keyphrases and in languages without word-form matching, mirroring Yoast's lower bound when it has no word forms."),
	check(IDStuffing, seo.Error, "adjusted density above 4%, or 3 or more uses under 51 words, 4 or more under 100",
		"Yoast SEO keyphrase density (over 4% is stuffing); Google Search Central, spam policies on keyword stuffing (https://developers.google.com/search/docs/essentials/spam-policies)", "In languages without word-form matching the good range ends at 3%, so more uses are flagged as too many before they reach stuffing at 4%."),
	check(IDRepeatedInSentence, seo.Notice, "a sentence uses the keyphrase 3 or more times",
		"seokit's own rule, after Google Search Central, spam policies on keyword stuffing (https://developers.google.com/search/docs/essentials/spam-policies)", ""),
	check(IDNotInTitle, seo.Warning, "the title lacks some of the keyphrase's words",
		"Yoast SEO keyphrase in SEO title", ""),
	check(IDTitleNotAtStart, seo.Notice, "the title has the keyphrase but not at its start, or not as one phrase",
		"Yoast SEO keyphrase in SEO title (best at the start)", ""),
	check(IDNotInIntroduction, seo.Warning, "the first paragraph lacks the keyphrase",
		"Yoast SEO keyphrase in introduction", ""),
	check(IDIntroductionSplit, seo.Notice, "the first paragraph has the keyphrase's words only across sentences",
		"Yoast SEO keyphrase in introduction (words in one sentence)", ""),
	check(IDNotInDescription, seo.Warning, "the meta description lacks the keyphrase",
		"Yoast SEO keyphrase in meta description", ""),
	check(IDDescriptionOverused, seo.Notice, "more than 2 sentences of the meta description use the keyphrase",
		"Yoast SEO keyphrase in meta description (more than 2 uses is too many)", ""),
	check(IDNotInSubheadings, seo.Notice, "fewer than 30% of the H2/H3 subheadings reflect the keyphrase",
		"Yoast SEO keyphrase in subheadings (30% to 75% of H2/H3)", ""),
	check(IDSubheadingsOverused, seo.Warning, "more than 75% of the H2/H3 subheadings reflect the keyphrase",
		"Yoast SEO keyphrase in subheadings (30% to 75% of H2/H3)", ""),
	check(IDNotInAlt, seo.Notice, "no image alt text (or under 30% of 5 or more) reflects the keyphrase",
		"Yoast SEO keyphrase in image alt attributes", ""),
	check(IDAltOverused, seo.Notice, "more than 75% of 5 or more image alt texts reflect the keyphrase",
		"Yoast SEO keyphrase in image alt attributes", ""),
	check(IDNotInSlug, seo.Notice, "the slug lacks the keyphrase's words",
		"Yoast SEO keyphrase in slug", ""),
	check(IDPoorDistribution, seo.Warning, "a run of 30% or more of the sentences lacks the keyphrase (15 or more sentences)",
		"Yoast SEO Premium keyphrase distribution (longest run without the keyphrase, 15 sentences or more)", ""),
	check(IDCompetingLinks, seo.Warning, "a link's anchor text is the keyphrase",
		"Yoast SEO competing links", ""),
	check(IDCompeting, seo.Notice, "two keyphrases target the same words",
		"seokit's own rule: two keyphrases of one text that share their words compete for the same query", ""),
	check(IDSentenceTooLong, seo.Warning, "more than 25% of the sentences are longer than the language's limit (20 words; es, it, pt 25; ru 15)",
		"Yoast SEO readability analysis, sentence length (per-language maximum, 25% of sentences)", ""),
	check(IDParagraphTooLong, seo.Warning, "a paragraph has more than 150 words",
		"Yoast SEO readability analysis, paragraph length (150 words)", ""),
	check(IDSectionTooLong, seo.Warning, "a section between subheadings has more than 300 words",
		"Yoast SEO readability analysis, subheading distribution (300 words)", "Yoast warns from 350 words per section (300 for cornerstone content); the optimizer uses 300."),
	check(IDNoSubheadings, seo.Warning, "a text of more than 300 words has no subheading",
		"Yoast SEO readability analysis, subheading distribution (a text over 300 words needs subheadings)", ""),
	check(IDPassiveVoice, seo.Warning, "more than 10% of the sentences are in the passive voice",
		"Yoast SEO readability analysis, passive voice (10% of sentences)", ""),
	check(IDFewTransitions, seo.Warning, "fewer than 30% of the sentences have a transition word (texts over 200 words)",
		"Yoast SEO readability analysis, transition words (30% of sentences, texts over 200 words)", ""),
	check(IDConsecutiveOpenings, seo.Warning, "3 or more consecutive sentences start with the same word",
		"Yoast SEO readability analysis, consecutive sentences (3 in a row)", ""),
	check(IDComplexWords, seo.Notice, "more than 15% of the words are complex (en 3+ syllables, ru 5+, others 4+)",
		"Yoast SEO Premium word complexity", "Yoast calls a word complex by its length and a frequency list, with 10% as the limit; seokit counts syllables (en 3+, ru 5+, others 4+) with 15% as the limit."),
	check(IDHardToRead, seo.Warning, "the language's reading-ease score is below its easy band (60; ru 50)",
		"Flesch reading ease and its per-language adaptations (Amstad, Fernández Huerta, Kandel-Moles ...), with Yoast SEO's bands (60; ru 50)", ""),
}

func check(id string, sev seo.Severity, summary, source, differs string) seo.CheckInfo {
	return seo.CheckInfo{ID: id, Severity: sev, Scope: ScopeContent, Summary: summary, Source: source, Differs: differs}
}

var severityOf = func() map[string]seo.Severity {
	m := make(map[string]seo.Severity, len(catalog))
	for _, c := range catalog {
		m[c.ID] = c.Severity
	}
	return m
}()

// Catalog returns every check of the optimizer with its severity.
func Catalog() []seo.CheckInfo {
	return append([]seo.CheckInfo(nil), catalog...)
}
