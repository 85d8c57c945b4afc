package spec

// s builds a clause of the specification; a builds a clause of ADR 0026.
func s(id, section string, level Level, summary string) Clause {
	return Clause{ID: id, Section: section, Level: level, Source: SourceSpec, Summary: summary}
}

func a(id, section string, level Level, summary string) Clause {
	return Clause{ID: id, Section: section, Level: level, Source: SourceADR, Summary: summary}
}

// interp builds an interpretation clause; note says what the spec leaves open and what we decided.
func interp(id, section string, level Level, summary, note string) Clause {
	return Clause{ID: id, Section: section, Level: level, Source: SourceInterpretation, Summary: summary, Note: note}
}
