const params = new URLSearchParams(window.location.search);
const callback = params.get('callback');

setTimeout(callback + '()', 100); // VULN: code-injection
