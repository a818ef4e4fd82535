export function showToast() {
  const message = new URL(location.href).searchParams.get('msg');
  const list = document.querySelector('#toasts');
  const item = document.createElement('li');
  item.className = 'toast';
  item.textContent = message;
  list.append(item);
}
