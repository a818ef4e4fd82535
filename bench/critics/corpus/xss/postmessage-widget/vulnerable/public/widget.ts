const panel = document.getElementById('panel') as HTMLElement;

window.addEventListener('message', (event: MessageEvent) => {
  if (event.data?.type === 'notice') {
    panel.innerHTML = event.data.html; // VULN: xss
  }
});
