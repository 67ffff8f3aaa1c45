package adaptertest

import "testing"

// TestEveryErrorCaseNamesItsBlocks keeps the table exact: every case with
// an envelope says, byte for byte, the blocks the model reads after the
// message, so that both SDKs are held to the same rendering.
func TestEveryErrorCaseNamesItsBlocks(t *testing.T) {
	for _, c := range Cases() {
		if c.Want.Code != "" && len(c.Want.Rest) == 0 {
			t.Errorf("case %q has code %s but no Rest", c.Name, c.Want.Code)
		}
		if c.Want.Code != "" && c.Want.Category == "" {
			t.Errorf("case %q has code %s but no Category", c.Name, c.Want.Code)
		}
	}
}
