// inputFiles returns the files a file input holds now: name and size of
// each, in order.
function inputFiles() {
	return Array.from(this.files || [], f => ({name: f.name, size: f.size}));
}
