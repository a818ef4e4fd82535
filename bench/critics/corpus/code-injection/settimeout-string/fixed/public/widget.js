const params = new URLSearchParams(window.location.search);
const callback = params.get('callback');
const callbacks = { refresh: () => window.location.reload(), close: () => window.close() };

setTimeout(() => {
  if (callback === 'refresh' || callback === 'close') callbacks[callback]();
}, 100);
