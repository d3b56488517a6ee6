// demo.js: the demo page's buttons set attributes on the first widget; every qkv-* event any
// widget sends is listed.
const walk = document.getElementById('walk');
for (const button of document.querySelectorAll('button[data-attr]')) {
  button.addEventListener('click', () => {
    const { attr, value } = button.dataset;
    if (attr === 'scale') walk.scale = !walk.scale;
    else walk.setAttribute(attr, value);
  });
}
const log = document.getElementById('log');
for (const type of ['qkv-ready', 'qkv-step', 'qkv-train', 'qkv-error']) {
  document.addEventListener(type, (event) => {
    const li = document.createElement('li');
    li.textContent = `${type} ${JSON.stringify(event.detail)}`;
    log.prepend(li);
  });
}
