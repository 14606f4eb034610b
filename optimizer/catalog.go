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
	check(IDContentEmpty, seo.Error, "the text has fewer than 50 characters of words"),
	check(IDContentTooShort, seo.Warning, "the body has fewer than 300 words"),
	check(IDLanguageMismatch, seo.Warning, "the text appears to be in another language than the locale's"),
	check(IDLanguageUnsupported, seo.Notice, "the locale's language has no full support; language-specific checks were skipped"),
	check(IDTitleTooLong, seo.Warning, "the title is longer than 60 characters"),
	check(IDDescriptionTooShort, seo.Notice, "the meta description has 120 characters or fewer"),
	check(IDDescriptionTooLong, seo.Warning, "the meta description is longer than 155 characters"),
	check(IDKeyphraseMissing, seo.Error, "no keyphrase was given"),
	check(IDKeyphraseFunctionWords, seo.Warning, "the keyphrase has only function words"),
	check(IDKeyphraseTooLong, seo.Warning, "the keyphrase has more than 4 content words"),
	check(IDKeyphraseNotFound, seo.Error, "the keyphrase does not occur in the body"),
	check(IDDensityLow, seo.Warning, "fewer uses than the recommended range (adjusted density under 0.5%)"),
	check(IDDensityHigh, seo.Warning, "more uses than the recommended range (adjusted density over 3.5%, 3% without word forms), up to 4%"),
	check(IDStuffing, seo.Error, "adjusted density above 4%, or 3 or more uses under 51 words, 4 or more under 100"),
	check(IDRepeatedInSentence, seo.Notice, "a sentence uses the keyphrase 3 or more times"),
	check(IDNotInTitle, seo.Warning, "the title lacks some of the keyphrase's words"),
	check(IDTitleNotAtStart, seo.Notice, "the title has the keyphrase but not at its start, or not as one phrase"),
	check(IDNotInIntroduction, seo.Warning, "the first paragraph lacks the keyphrase"),
	check(IDIntroductionSplit, seo.Notice, "the first paragraph has the keyphrase's words only across sentences"),
	check(IDNotInDescription, seo.Warning, "the meta description lacks the keyphrase"),
	check(IDDescriptionOverused, seo.Notice, "more than 2 sentences of the meta description use the keyphrase"),
	check(IDNotInSubheadings, seo.Notice, "fewer than 30% of the H2/H3 subheadings reflect the keyphrase"),
	check(IDSubheadingsOverused, seo.Warning, "more than 75% of the H2/H3 subheadings reflect the keyphrase"),
	check(IDNotInAlt, seo.Notice, "no image alt text (or under 30% of 5 or more) reflects the keyphrase"),
	check(IDAltOverused, seo.Notice, "more than 75% of 5 or more image alt texts reflect the keyphrase"),
	check(IDNotInSlug, seo.Notice, "the slug lacks the keyphrase's words"),
	check(IDPoorDistribution, seo.Warning, "a run of 30% or more of the sentences lacks the keyphrase (15 or more sentences)"),
	check(IDCompetingLinks, seo.Warning, "a link's anchor text is the keyphrase"),
	check(IDCompeting, seo.Notice, "two keyphrases target the same words"),
	check(IDSentenceTooLong, seo.Warning, "more than 25% of the sentences are longer than the language's limit (20 words; es, it, pt 25; ru 15)"),
	check(IDParagraphTooLong, seo.Warning, "a paragraph has more than 150 words"),
	check(IDSectionTooLong, seo.Warning, "a section between subheadings has more than 300 words"),
	check(IDNoSubheadings, seo.Warning, "a text of more than 300 words has no subheading"),
	check(IDPassiveVoice, seo.Warning, "more than 10% of the sentences are in the passive voice"),
	check(IDFewTransitions, seo.Warning, "fewer than 30% of the sentences have a transition word (texts over 200 words)"),
	check(IDConsecutiveOpenings, seo.Warning, "3 or more consecutive sentences start with the same word"),
	check(IDComplexWords, seo.Notice, "more than 15% of the words are complex (en 3+ syllables, ru 5+, others 4+)"),
	check(IDHardToRead, seo.Warning, "the language's reading-ease score is below its easy band (60; ru 50)"),
}

func check(id string, sev seo.Severity, summary string) seo.CheckInfo {
	return seo.CheckInfo{ID: id, Severity: sev, Scope: ScopeContent, Summary: summary}
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
