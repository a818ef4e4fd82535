const panel = document.getElementById('panel') as HTMLElement;
const HOST_ORIGIN = 'https://portal.example.com';

window.addEventListener('message', (event: MessageEvent) => {
  if (event.origin !== HOST_ORIGIN) return;
  if (event.data?.type === 'notice') {
    panel.innerHTML = event.data.html;
  }
});
