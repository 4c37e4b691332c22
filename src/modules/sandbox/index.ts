export { copyCatalogIntoSandbox, resetSandbox } from './sandbox.service.ts';
