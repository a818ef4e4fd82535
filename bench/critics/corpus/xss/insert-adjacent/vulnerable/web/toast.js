export function showToast() {
  const message = new URL(location.href).searchParams.get('msg');
  const list = document.querySelector('#toasts');
  list.insertAdjacentHTML('beforeend', `<li class="toast">${message}</li>`); // VULN: xss
}
