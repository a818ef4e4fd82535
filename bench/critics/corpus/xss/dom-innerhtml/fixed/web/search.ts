const results = document.getElementById('results') as HTMLElement;
const query = decodeURIComponent(location.hash.slice(1));

const message = document.createElement('p');
message.textContent = `No results for ${query}`;
results.replaceChildren(message);
