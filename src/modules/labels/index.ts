export {
  createLabel,
  ensureSandboxWorkspace,
  findSandboxOf,
  getLabel,
  type LabelUpdate,
  listLabelViews,
  updateLabel,
  workspaceOfLabel,
  workspaceOwning,
} from './labels.service.ts';
export { countLabels } from './labels.store.ts';
