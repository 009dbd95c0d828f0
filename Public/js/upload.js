// Uploading a scene (docs/scenes.md, "Uploads"): drop or pick a scene's JSON file and its images,
// POST them to /scenes as form data, then open the new room, or list the server's errors line by line.

const form = document.getElementById("upload-form");
const picker = document.getElementById("upload-files");
const chosen = document.getElementById("upload-chosen");
const status = document.getElementById("upload-status");
const errors = document.getElementById("upload-errors");
const result = document.getElementById("upload-result");
const link = document.getElementById("upload-link");

let files = [];

function choose(list) {
  files = [...list];
  chosen.textContent = files.length ? files.map((f) => f.name).join(", ") : "no files chosen";
}

/** The scene is the one .json file; every other file is sent as an image, checked by the server by its content. */
function formData() {
  const data = new FormData();
  const scenes = files.filter((f) => f.name.toLowerCase().endsWith(".json"));
  if (scenes.length !== 1) return null;
  data.append("scene", scenes[0], scenes[0].name);
  for (const f of files) if (f !== scenes[0]) data.append("image", f, f.name);
  return data;
}

function showErrors(list) {
  errors.replaceChildren(...list.map((e) => {
    const item = document.createElement("li");
    const place = [e.file, e.line].filter((p) => p !== null && p !== undefined).join(":");
    item.textContent = `${place ? place + ": " : ""}${e.path}: ${e.message}`;
    return item;
  }));
  errors.hidden = list.length === 0;
}

async function upload(event) {
  event.preventDefault();
  showErrors([]);
  result.hidden = true;
  const data = formData();
  if (!data) {
    status.textContent = "Choose one scene file (.json) and its images.";
    return;
  }
  status.textContent = "Uploading…";
  let reply, body;
  try {
    reply = await fetch("/scenes", { method: "POST", body: data });
    body = await reply.json().catch(() => ({ errors: [{ path: "$", message: `the server answered ${reply.status}` }] }));
  } catch (error) {
    status.textContent = `Upload failed: ${error.message}`;
    return;
  }
  if (!reply.ok) {
    status.textContent = `Refused (${reply.status}):`;
    showErrors(body.errors ?? []);
    return;
  }
  status.textContent = `Scene ${body.scene} uploaded; opening its room…`;
  const url = new URL(body.link, location.href);
  link.href = url.href;
  link.textContent = url.href;
  result.hidden = false;
  location.assign(url.href);
}

if (form) {
  picker.addEventListener("change", () => choose(picker.files));
  form.addEventListener("submit", upload);
  form.addEventListener("dragover", (event) => { event.preventDefault(); form.classList.add("dropping"); });
  form.addEventListener("dragleave", () => form.classList.remove("dropping"));
  form.addEventListener("drop", (event) => {
    event.preventDefault();
    form.classList.remove("dropping");
    choose(event.dataTransfer.files);
  });
  window.scrollcastUpload = { choose };
}
