package observe

// Error is an internal error of the driver or the product.
type Error struct {
	Message string `json:"message"`
}

func (Error) What() string { return "error" }
