window.addEventListener('message', (event) => {
  if (event.data && event.data.action === 'navigate') {
    window.location.href = event.data.url; // VULN: open-redirect
  }
});
