package observe

// Refused is a frame a real decoder refused or dropped. Silent is true when the product
// drops it without telling anyone.
type Refused struct {
	Direction string `json:"direction"` // "C>H" or "H>C"
	Opcode    int    `json:"opcode"`
	Length    int    `json:"length"`
	Reason    string `json:"reason"`
	Silent    bool   `json:"silent"`
}

func (Refused) What() string { return "refused" }

// Rejected is a frame the product decoded but refused for its shape: a field missing, of
// the wrong type or out of range. Pointer is the JSON pointer of the offending field, when
// there is one. The frame was dropped; what the sender meant did not happen.
type Rejected struct {
	Direction string `json:"direction"` // "C>H" or "H>C"
	Opcode    int    `json:"opcode"`
	Reason    string `json:"reason"`
	Pointer   string `json:"pointer,omitempty"`
}

func (Rejected) What() string { return "rejected" }
