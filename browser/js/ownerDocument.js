// ownerDocument returns the document this node belongs to (this itself for
// a document), whose frame and loader say where the node is.
function ownerDocument() {
	return this.nodeType === 9 ? this : this.ownerDocument;
}
