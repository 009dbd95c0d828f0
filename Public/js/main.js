// The page's entry (index.html loads it, or its bundle): this document's one ScrollcastPage,
// started. Every other module only defines; this is the one that starts anything.

import { ScrollcastPage } from "./page.js";

new ScrollcastPage().start();
