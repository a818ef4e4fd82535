const TRUSTED = ['https://login.example.com', 'https://app.example.com'];

window.addEventListener('message', (event) => {
  if (!TRUSTED.includes(event.origin)) return;
  if (event.data && event.data.action === 'navigate') {
    window.location.href = event.data.url;
  }
});
