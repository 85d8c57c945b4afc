package spec

// parts lists the clause tables in registry order: the specification by section, ADR 0026, then
// the project's interpretations (docs/interpretations.md).
func parts() [][]Clause {
	return [][]Clause{
		section1(), section2(), section3(), section4(), section41(), section5(),
		section6(), section7(), section8(), section9(), section10(),
		adr0026(),
		interpretations(),
	}
}
