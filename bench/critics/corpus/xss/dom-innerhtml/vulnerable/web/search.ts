const results = document.getElementById('results') as HTMLElement;
const query = decodeURIComponent(location.hash.slice(1));

results.innerHTML = `<p>No results for <b>${query}</b></p>`; // VULN: xss
