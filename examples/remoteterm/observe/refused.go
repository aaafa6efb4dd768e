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
