// Stylesheets are imported for their side effect (the bundler writes them to the page).
declare module "*.css";
