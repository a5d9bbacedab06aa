// readLocalStorage returns the page's localStorage as [name, value] pairs, in
// key order.
function readLocalStorage() {
	const items = [];
	for (let i = 0; i < localStorage.length; i++) {
		const name = localStorage.key(i);
		items.push([name, localStorage.getItem(name)]);
	}
	return items;
}
