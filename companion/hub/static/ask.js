// A question in the page (never the browser's own dialog), for the dashboard and the setup page:
// ask(question, [{value, label, danger, id}]) resolves with the chosen value, or null for Cancel.
"use strict";
function ask(question, choices) {
  const dialog = document.querySelector("dialog.ask, dialog.question");
  dialog.querySelector(".ask-text").textContent = question;
  const root = dialog.querySelector(".ask-choices");
  root.textContent = "";
  for (const choice of choices) {
    const b = document.createElement("button");
    b.type = "submit";
    b.value = String(choice.value);
    b.textContent = choice.label;
    if (choice.danger) b.className = "danger";
    if (choice.id) b.id = choice.id;
    root.append(b);
  }
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      const picked = choices.find((c) => String(c.value) === dialog.returnValue);
      resolve(picked ? picked.value : null);
    }, { once: true });
    dialog.returnValue = "";
    dialog.showModal();
    const first = root.querySelector("button");
    if (first) first.focus();
  });
}
