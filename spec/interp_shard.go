package spec

// shardInterpretations lists the interpretation clauses of sharded runs (ids I-SHARD-n): what a
// --shard i/n run's verdict is, and what it means for merged shards to give the verdict of one run.
func shardInterpretations() []Clause {
	const s10 = "§10"
	return []Clause{
		interp("I-SHARD-1", s10, Must, "a --shard i/n run judges exactly the items (checks, vectors, goldens, seeds, gates) whose stable id hashes to i of n (FNV-1a 64, internal/shard), and its report names the shard; `report merge` accepts only all of 1/n … n/n of one split, each once, of one kind and of one run (same target, corpus and options), every item in the shard its id hashes to, and refuses anything else as bad input",
			"Spec §10 gates the continuous checks in CI but says nothing about splitting them across runners. A partition by id alone is the same on every runner whatever else it holds, so shards need no coordination, and a merge can prove it was given one whole split rather than trust the file names: a missing, repeated or foreign shard, or an item that was moved, would make the merged verdict a lie.").protocol(),
		interp("I-SHARD-2", s10, Must, "a shard's verdict is of its part only and never reads as the run's: a shard that judged nothing is not a failure, a certify shard concludes partial and its badge is never certified, and the text output says it is a shard; the run's verdict is the merged report's, which applies the same verdict rules (vectors' OK, certify's Conclude, the goldens and deploysim failure counts, the fitness tally) to the union of the shards' results",
			"A certificate, a green CI job or a badge must not be obtainable from a part of the run (spec §10: maturity is self-checking evidence). Rules over the whole run — nothing judged fails the run, certified needs every MUST check to pass — cannot be decided inside one shard, so they are decided once, over the union.").protocol(),
		interp("I-SHARD-3", s10, Must, "merged shards equal one run modulo timings: the merged report lists the same items in the order one run lists them, with the same verdicts, counts, ledger problems and overall verdict; only elapsed times (summed over the shards), the target's process id and address, the fresh execution ids a kit invents each run, and a runner-level give-up message (an unresponsive fold or bridge, per shard) may differ",
			"This is what makes a sharded CI matrix a faithful stand-in for one long job: the report is the one artefact users read, diff and cite as evidence. Timings, process ids, fresh ids and the point at which a runner gave up on an unresponsive peer differ between two whole runs too: they depend on the runner, not on the implementation judged.").protocol(),
	}
}
