package cliverb

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/spf13/cobra"
)

func NewDigestCmd() *cobra.Command {
	var segment int
	var eventType, payload string
	cmd := &cobra.Command{
		Use:   "digest --segment N --event-type T --payload JSON",
		Short: "Print the emit digest (metadata.flowEmit) of an emit",
		Long: `digest prints the 16 hex digits of FNV-1a 64 over "<segment>|<canonical JSON of [eventType, payload]>"
(spec §3 emit identity, ADR 0102): the stamp a flow-level emit carries in metadata.flowEmit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, f := range []string{"segment", "event-type", "payload"} {
				if !cmd.Flags().Changed(f) {
					return BadInput("--%s is required", f)
				}
			}
			if eventType == "" {
				return BadInput("digest: --event-type is empty: an emit always has an event type")
			}
			if segment < 0 {
				return BadInput("digest: --segment %d: want a count of gate passthroughs (0 or more)", segment)
			}
			d, err := fold.EmitDigest(segment, eventType, []byte(payload))
			if err != nil {
				return BadInput("--payload: %v", err)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), d)
			return err
		},
	}
	cmd.Flags().IntVar(&segment, "segment", 0, "gate passthroughs consumed at the emit")
	cmd.Flags().StringVar(&eventType, "event-type", "", "the emit's event type")
	cmd.Flags().StringVar(&payload, "payload", "", "the emit's payload as JSON")
	return cmd
}
