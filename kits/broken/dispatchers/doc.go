// Package dispatchers holds deliberately broken ExecutionDispatchers, one defect each, registered as
// mutants (kind "dispatcher"); a test proves each is rejected by the kit check meant for it and that
// the reference memory dispatcher passes every check.
package dispatchers
