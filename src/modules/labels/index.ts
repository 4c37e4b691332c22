export {
  createLabel,
  ensureSandboxWorkspace,
  getLabel,
  type LabelUpdate,
  listLabelViews,
  updateLabel,
  workspaceOfLabel,
  workspaceOwning,
} from './labels.service.ts';
export { countLabels, findSandboxOf } from './labels.store.ts';
