package spec

// interpretations gathers the clauses this project decided where the spec is silent. Each area keeps
// its own table in interp_<area>.go; docs/interpretations.md is generated from them.
func interpretations() []Clause {
	var out []Clause
	for _, part := range [][]Clause{
		manifestInterpretations(), foldInterpretations(), storeInterpretations(), storeGapInterpretations(),
		vectorInterpretations(), bridgeInterpretations(), kernelInterpretations(), kernelParkInterpretations(),
		wireInterpretations(), wireEdgeInterpretations(), wireClassInterpretations(), wireExploreInterpretations(),
		goldenInterpretations(),
		certInterpretations(), certContractInterpretations(), certRunInterpretations(), storeEdgeInterpretations(), storeNameInterpretations(), bridgeEdgeInterpretations(), pluginInterpretations(), pluginGapInterpretations(),
		dispatchInterpretations(), dispatchProtocolInterpretations(), bridgeSeamInterpretations(), coverageInterpretations(), shardInterpretations(), perfInterpretations(),
		netInterpretations(),
	} {
		out = append(out, part...)
	}
	return out
}
