// The answer card's script (ui/answer_card.py loads it; the card is a Streamlit v2 component).
const STATE = new WeakMap();       // per mounted card: the item shown and the answers chosen so far
const RESEND_MS = [4000, 8000, 15000, 30000];   // after a Submit with no new page: when to send it again

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;       // text only: imported fields are never markup
  return node;
}

// The card's CSS is a file the browser fetches once per page (ui/card/, issue 58); each mount (its own shadow
// root) links it anew and the browser applies it a moment later. So the first card, once its CSS has come, hands
// it to every later one as a constructed sheet, which applies at once. Until a card is styled it is hidden (a
// phone would show it unstyled, options side by side), and fit() and the focus wait for it.
let SHEET = null;

function keep(link) {
  if (SHEET || !link || !link.sheet || typeof CSSStyleSheet !== "function") return;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync([...link.sheet.cssRules].map((rule) => rule.cssText).join("\n"));
    SHEET = sheet;
  } catch (e) { /* an older browser: each card waits for its link */ }
}

function whenStyled(parentElement, then) {
  const link = parentElement.querySelector('link[rel="stylesheet"]');
  if (!link || link.sheet) { keep(link); then(); return; }
  if (SHEET && "adoptedStyleSheets" in parentElement) {
    if (!parentElement.adoptedStyleSheets.includes(SHEET)) parentElement.adoptedStyleSheets = [SHEET];
    then();
    return;
  }
  const root = parentElement.querySelector(".fv-card");
  root.style.visibility = "hidden";
  let done = false;
  const shown = () => { if (done) return; done = true; keep(link); root.style.visibility = ""; then(); };
  link.addEventListener("load", shown, { once: true });
  // unstyled is better than no card: a file that failed (its error may have come before this listener) or is slow
  link.addEventListener("error", shown, { once: true });
  setTimeout(shown, 3000);
}

const RESIZE = new WeakMap();      // per card: the observer that fits its options again when its width changes

// No label may break inside a word: where a row of options is too narrow for a label's longest word,
// the row's text gets smaller; where it still is, the options stand one a line.
function fit(root) {
  const overflows = (group) => [...group.querySelectorAll(".fv-label")].some(
    (label) => label.scrollWidth > label.clientWidth + 1);
  root.querySelectorAll(".fv-options").forEach((group) => {
    group.classList.remove("fv-compact", "fv-stacked");
    if (!overflows(group)) return;
    group.classList.add("fv-compact");
    if (overflows(group)) group.classList.add("fv-stacked");
  });
}

function scrollToTop() {
  for (const node of [document.querySelector('[data-testid="stMain"]'), document.scrollingElement]) {
    if (node) node.scrollTop = 0;
  }
  window.scrollTo(0, 0);
}

export default function ({ data, parentElement, setTriggerValue }) {
  const root = parentElement.querySelector(".fv-card");
  let state = STATE.get(parentElement);
  let fresh = false;
  if (!state || state.item !== data.item) {
    state = { item: data.item, chosen: Object.assign({}, data.locked || {}), sent: false };
    STATE.set(parentElement, state);
    scrollToTop();
    fresh = true;
  } else if (state.sent && state.sentWith !== data.render) {
    if (data.handled === state.payload.nonce) {
      // The server took our Submit and drew this item again: it refused the answer, and the page says
      // why above the card. Offer Submit again, with the answers still chosen.
      state.sent = false;
    } else {
      // A page came back without our Submit having reached the server (a worker gone, the connection
      // lost while it was on its way): send it again now. An answer is stored once, so a Submit that
      // did arrive and is sent again changes nothing, and the page then says it is saved.
      state.attempt = (state.attempt || 0) + 1;
      state.sentWith = data.render;
      setTriggerValue("submit", Object.assign({}, state.payload, { attempt: state.attempt }));
    }
  }
  if (state.sent) resendLater();
  const locked = !!data.locked;
  root.textContent = "";
  root.setAttribute("lang", data.lang || "en");
  root.setAttribute("dir", data.dir || "ltr");
  // what a screen reader hears when a new item comes: the answer saved, and which item this is
  const status = el("p", "fv-status", data.status || "");
  // the item's place is shown by the page's progress line: here it is for the screen reader only
  if (data.announce) status.appendChild(el("span", "fv-sr", (data.status ? " " : "") + data.announce));
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  root.appendChild(status);
  const buttons = {};
  data.questions.forEach((question) => {
    const block = el("div", "fv-question");
    const prompt = el("p", "fv-prompt", question.prompt);
    prompt.id = `${data.item}-${question.id}-prompt`;
    prompt.tabIndex = -1;              // focus lands here on a new item: on the question, not on an answer
    const options = el("div", "fv-options" + (question.long ? " fv-long" : question.scale ? " fv-scale" : ""));
    options.style.setProperty("--fv-steps", String(question.options.length));
    options.setAttribute("role", "group");
    options.setAttribute("aria-labelledby", prompt.id);
    buttons[question.id] = {};
    question.options.forEach((option) => {
      const button = el("button", "fv-option");
      button.type = "button";
      button.dataset.question = question.id;
      button.dataset.value = option.value;
      if (option.key) {
        const badge = el("span", "fv-key", option.key.toUpperCase());
        badge.setAttribute("aria-hidden", "true");               // announced as the shortcut instead
        button.appendChild(badge);
      }
      button.appendChild(el("span", "fv-label", option.label));
      if (option.key) button.setAttribute("aria-keyshortcuts", option.key.toUpperCase());
      button.setAttribute("aria-pressed", String(state.chosen[question.id] === option.value));
      button.disabled = locked || state.sent;
      button.addEventListener("click", () => choose(question.id, option.value));
      buttons[question.id][option.value] = button;
      options.appendChild(button);
    });
    block.appendChild(prompt);
    block.appendChild(options);
    const feedback = (data.feedback || {})[question.id];
    if (feedback) {        // practice: what was chosen against what was expected, in colour, marks and words
      const expected = buttons[question.id][feedback.expected];
      const wrong = feedback.expected != null && !feedback.right;
      if (expected) {
        expected.classList.add("fv-expected");
        expected.appendChild(mark("\u2713"));
      }
      const chosen = buttons[question.id][state.chosen[question.id]];
      if (wrong && chosen) {
        chosen.classList.add("fv-wrong");
        chosen.appendChild(mark("\u2717"));
      }
      const line = el("p", "fv-feedback" + (feedback.right ? " fv-right" : wrong ? " fv-wrong" : ""));
      if (feedback.expected != null) line.appendChild(mark(feedback.right ? "\u2713 " : "\u2717 "));
      line.appendChild(document.createTextNode(feedback.text));
      line.setAttribute("role", "status");
      block.appendChild(line);
    }
    root.appendChild(block);
  });
  let comment = null;
  if (data.comment && !locked) {
    const block = el("div", "fv-question");
    const label = el("label", "fv-prompt", data.comment);
    comment = el("textarea", "fv-comment");
    comment.id = `${data.item}-comment`;
    label.htmlFor = comment.id;
    comment.value = state.comment || "";
    // the server takes at most comment_limit characters: the box stops there and says so as the rater types
    comment.maxLength = data.comment_limit;
    const count = el("p", "fv-note fv-comment-count", "");
    count.id = `${data.item}-comment-count`;
    comment.setAttribute("aria-describedby", count.id);
    const counted = () => {
      const number = (n) => n.toLocaleString(data.lang);
      count.textContent = data.comment_count.replace("{count}", number(comment.value.length))
        .replace("{limit}", number(data.comment_limit));
    };
    counted();
    comment.addEventListener("input", () => { state.comment = comment.value; counted(); });
    block.appendChild(label);
    block.appendChild(comment);
    block.appendChild(count);
    root.appendChild(block);
  }
  const alert = el("p", "fv-alert");
  alert.setAttribute("role", "alert");
  let submit = null;
  if (!locked) {
    const footer = el("div", "fv-footer");
    submit = el("button", "fv-submit", state.sent ? data.saving : data.submit);
    submit.type = "button";
    submit.disabled = state.sent;
    submit.setAttribute("aria-keyshortcuts", "Enter");
    submit.addEventListener("click", send);
    footer.appendChild(submit);
    // the keys of the rater's own keyboard: ⌘ only on a Mac
    const mac = /Mac|iPhone|iPad/.test(navigator.platform || "");
    footer.appendChild(el("span", "fv-note", mac && data.hint_mac ? data.hint_mac : data.hint));
    root.appendChild(footer);
  }
  root.appendChild(alert);
  whenStyled(parentElement, settle);

  function settle() {      // the card drawn and styled: fit its options, then focus or scroll
    fit(root);
    requestAnimationFrame(() => fit(root));        // once the page's fonts and width are settled
    if (!RESIZE.has(root)) {                       // and again whenever the card's width changes
      let width = root.clientWidth;
      const observer = new ResizeObserver(() => {
        if (root.clientWidth !== width) { width = root.clientWidth; fit(root); }
      });
      observer.observe(root);
      RESIZE.set(root, observer);
    }
    if (fresh && !data.feedback) {      // a new item: keyboard and screen reader start at its first question
      const first = root.querySelector(".fv-prompt");
      if (first) requestAnimationFrame(() => first.focus({ preventScroll: true }));
    }
    if (data.feedback) {       // practice: the answer's feedback is what the rater came to read, on a phone too
      const first = root.querySelector(".fv-feedback");
      if (first) requestAnimationFrame(() => first.scrollIntoView({ block: "center" }));
    }
  }

  function mark(text) {
    const node = el("span", "fv-mark", text);
    node.setAttribute("aria-hidden", "true");      // the sentence under the options says it in words
    return node;
  }

  function choose(qid, value) {
    if (locked || state.sent) return;
    state.chosen[qid] = value;
    for (const [v, button] of Object.entries(buttons[qid])) button.setAttribute("aria-pressed", String(v === value));
    alert.textContent = "";
  }

  function send() {
    if (locked || state.sent) return;
    const missing = data.questions.filter((q) => !(q.id in state.chosen));
    if (missing.length) { alert.textContent = data.missing; return; }
    state.sent = true;
    state.sentWith = data.render;
    state.attempt = 0;
    state.payload = { item: data.item, answers: state.chosen, comment: comment ? comment.value : null,
                      nonce: Math.random().toString(36).slice(2) };
    submit.disabled = true;
    submit.textContent = data.saving;
    Object.values(buttons).forEach((row) => Object.values(row).forEach((b) => { b.disabled = true; }));
    setTriggerValue("submit", state.payload);
    resendLater();
  }

  // A Submit sent while the connection was down is dropped by Streamlit ("Cannot send rerun
  // backMessage when disconnected"), and after it reconnects (to another worker) nothing is rerun, so
  // no new page would ever come. Until one comes, send the same answers again, less and less often:
  // the server stores an answer once, so a repeat that crosses a slow reply changes nothing.
  function resendLater() {
    clearTimeout(state.timer);
    const wait = RESEND_MS[Math.min(state.attempt || 0, RESEND_MS.length - 1)];
    state.timer = setTimeout(() => {
      if (!state.sent || STATE.get(parentElement) !== state) return;
      state.attempt = (state.attempt || 0) + 1;
      setTriggerValue("submit", Object.assign({}, state.payload, { attempt: state.attempt }));
      resendLater();
    }, wait);
  }

  // The key a rater pressed, by where it is on the keyboard (KeyboardEvent.code): the badges show the
  // keys of a US layout, and "1" or "a" is the same key on an AZERTY, Cyrillic or Arabic keyboard.
  function keyOf(event) {
    const code = event.code || "";
    if (/^Key[A-Z]$/.test(code)) return code.slice(3).toLowerCase();
    if (/^(Digit|Numpad)[0-9]$/.test(code)) return code.slice(-1);
    return (event.key || "").toLowerCase();
  }

  function onKey(event) {
    if (locked) return;
    // The card lives in a shadow root: at the document, event.target is its host, so ask the path
    // where the key really went. Keys typed into a text field belong to the text.
    const target = (event.composedPath && event.composedPath()[0]) || event.target;
    const typing = !!target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT"
      || target.tagName === "SELECT" || target.isContentEditable);
    if (event.key === "Enter" || event.key === " ") {
      if (typing) {              // Enter adds a line; Ctrl+Enter (⌘+Enter) submits from the comment
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target === comment) {
          event.preventDefault(); send();
        }
        return;
      }
      // A focused control does what it does (an option is chosen, the expander opens, Submit submits);
      // Enter submits only when the focus is on no control.
      const control = target && target.closest && target.closest(
        'button, a[href], summary, [role="button"], [role="tab"], input, select, textarea');
      if (control || event.key === " ") return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
      event.preventDefault(); send(); return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = keyOf(event);
    for (const question of data.questions) {
      const option = question.options.find((o) => o.key === key);
      if (!option) continue;
      event.preventDefault(); event.stopPropagation();
      if (state.sent) { alert.textContent = data.busy; return; }      // not lost without a word
      choose(question.id, option.value);
      return;
    }
  }
  document.addEventListener("keydown", onKey, true);
  return () => {
    document.removeEventListener("keydown", onKey, true);
    clearTimeout(state.timer);
  };
}
