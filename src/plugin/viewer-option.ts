/** The host option `viewer` (S19.1), apart from the viewer's registration so the host registry can read it. */

/** `viewer` of `install` and `webmcp`: every tool the installation folds, or only some. */
export type ViewerOption = boolean | { tools: readonly string[] };

/** Whether an installation's viewer shows `toolName`'s answers. */
export function viewerShows(option: ViewerOption | undefined, toolName: string): boolean {
  if (option === true) return true;
  return typeof option === "object" && option !== null && option.tools.includes(toolName);
}
