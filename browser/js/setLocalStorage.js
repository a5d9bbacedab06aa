// setLocalStorage writes the items, [name, value] pairs, into the page's
// localStorage.
function setLocalStorage(items) {
	for (const [name, value] of items) localStorage.setItem(name, value);
}
